// Connects to a servo-fleet gateway with the official MCP TypeScript SDK, lists the
// tools, opens a tab and prints what it saw as one JSON line for the Rust test.
// Usage: node call.mjs <mcp-url> <api-key>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, key] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${key}` } },
});
const client = new Client({ name: "servo-fleet-ts-test", version: "0.0.0" });
await client.connect(transport);
const { tools } = await client.listTools();
const opened = await client.callTool({
  name: "servo_navigate",
  arguments: { actions: [{ html: "<title>from typescript</title><p>hello</p>" }] },
});
const sessionID = opened.structuredContent.responses[0].sessionID;
const evaluated = await client.callTool({
  name: "servo_evaluate",
  arguments: { actions: [{ sessionID, script: "document.title.length" }] },
});
console.log(JSON.stringify({
  tools: tools.map((t) => t.name),
  opened: opened.structuredContent,
  evaluated: evaluated.structuredContent,
}));
await client.close();
