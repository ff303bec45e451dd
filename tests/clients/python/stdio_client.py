"""Drives `servo-fleet stdio` with the official MCP Python SDK's stdio client:
starts the server as a subprocess (as a desktop MCP client does), lists the
tools, opens a tab with inline HTML, evaluates in it, and prints what it saw
as one JSON object on stdout.

usage: stdio_client.py <servo-fleet binary> <data dir>
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main(binary: str, data_dir: str) -> None:
    params = StdioServerParameters(
        command=binary,
        args=["stdio", "--data-dir", data_dir],
        env={"RUST_LOG": "info"},
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            opened = await session.call_tool(
                "servo_navigate",
                {"actions": [{"html": "<title>from python</title><p>over stdio</p>"}]},
            )
            sid = opened.structuredContent["responses"][0]["sessionID"]
            evaluated = await session.call_tool(
                "servo_evaluate",
                {"actions": [{"sessionID": sid, "script": "document.title.length"}]},
            )
            listed = await session.call_tool("servo_session_list", {})
            print(
                json.dumps(
                    {
                        "server": init.serverInfo.name,
                        "tools": [t.name for t in tools.tools],
                        "opened": opened.structuredContent,
                        "evaluated": evaluated.structuredContent,
                        "listed": listed.structuredContent,
                    }
                )
            )


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
