// The page side of the DevTools endpoint (services/gateway/src/cdp). Each
// command that needs the page runs this function expression, applied to one
// request, as a `servo_evaluate` script; its completion value (JSON) is the
// command's result, `{error}` for a protocol error.
//
// Remote objects live in a table on the page's global object, under a
// symbol, so they last as long as the document's realm: a new document (a
// navigation, or the session restored on another worker) has a new table
// with a new epoch, and an old object ID is then "not found", as in Chrome.
// Node IDs (`backendNodeId`, also used as `nodeId`) come from the same table.
// The answer is `{epoch, out}`: the table's epoch, and the operation's result
// (`{error}` for a protocol error).
(function (request) {
  'use strict';
  const KEY = Symbol.for('servo-fleet.cdp');
  let table = globalThis[KEY];
  if (!table) {
    table = {
      epoch: Math.floor(Math.random() * 0x7fffffff).toString(36),
      next: 1,
      objects: new Map(),
      groups: new Map(),
      nodeIds: new WeakMap(),
      nodes: new Map(),
      nextNode: 1,
    };
    Object.defineProperty(globalThis, KEY, { value: table, configurable: true });
  }

  class Missing extends Error {}

  const keep = (value, group) => {
    const id = table.epoch + '.' + table.next++;
    table.objects.set(id, value);
    if (group) {
      if (!table.groups.has(group)) table.groups.set(group, []);
      table.groups.get(group).push(id);
    }
    return id;
  };
  const lookup = (id) => {
    if (!table.objects.has(id)) throw new Missing('Could not find object with given id');
    return table.objects.get(id);
  };
  const nodeId = (node) => {
    let id = table.nodeIds.get(node);
    if (!id) {
      id = table.nextNode++;
      table.nodeIds.set(node, id);
      table.nodes.set(id, node);
    }
    return id;
  };
  const nodeById = (id) => {
    const node = table.nodes.get(id);
    if (!node) throw new Missing('No node with given id found');
    return node;
  };
  const isNode = (v) => typeof Node !== 'undefined' && v instanceof Node;
  // The node a DOM command names: an object, a node ID, or a backend node ID.
  const target = (p) => {
    if (p.objectId !== undefined) return lookup(p.objectId);
    if (p.backendNodeId !== undefined) return nodeById(p.backendNodeId);
    if (p.nodeId !== undefined) return nodeById(p.nodeId);
    throw new Missing('Either nodeId, backendNodeId or objectId must be specified');
  };
  const element = (p) => {
    const node = target(p);
    if (!isNode(node)) throw new Missing('Object id doesn\'t reference a Node');
    return node;
  };

  const className = (v) => {
    try {
      const c = v.constructor;
      return (c && c.name) || 'Object';
    } catch (e) {
      return 'Object';
    }
  };
  const nodeDescription = (n) => {
    if (n.nodeType === 9) return '#document';
    if (n.nodeType !== 1) return n.nodeName;
    let d = n.localName;
    if (n.id) d += '#' + n.id;
    const cls = typeof n.className === 'string' ? n.className.trim() : '';
    if (cls) d += '.' + cls.split(/\s+/).join('.');
    return d;
  };
  const errorDescription = (e) => {
    const head = (e.name || 'Error') + ': ' + e.message;
    const stack = typeof e.stack === 'string' ? e.stack.trimEnd() : '';
    if (!stack) return head;
    return stack.startsWith(head) ? stack : head + '\n' + stack;
  };
  const subtype = (v) => {
    if (Array.isArray(v)) return 'array';
    if (isNode(v)) return 'node';
    if (v instanceof Error) return 'error';
    if (v instanceof Promise) return 'promise';
    if (v instanceof RegExp) return 'regexp';
    if (v instanceof Date) return 'date';
    if (v instanceof Map) return 'map';
    if (v instanceof Set) return 'set';
    if (v instanceof WeakMap) return 'weakmap';
    if (v instanceof WeakSet) return 'weakset';
    if (ArrayBuffer.isView(v)) return 'typedarray';
    if (v instanceof ArrayBuffer) return 'arraybuffer';
    return undefined;
  };
  const number = (v) => {
    if (Number.isNaN(v) || !Number.isFinite(v) || Object.is(v, -0)) {
      const u = Object.is(v, -0) ? '-0' : String(v);
      return { type: 'number', unserializableValue: u, description: u };
    }
    return { type: 'number', value: v, description: String(v) };
  };
  // A value as a RemoteObject: primitives by value; objects by value when
  // asked (as JSON, like Chrome), by handle otherwise.
  const remote = (v, byValue, group) => {
    switch (typeof v) {
      case 'undefined': return { type: 'undefined' };
      case 'number': return number(v);
      case 'string': return { type: 'string', value: v };
      case 'boolean': return { type: 'boolean', value: v };
      case 'bigint': return { type: 'bigint', unserializableValue: v + 'n', description: v + 'n' };
      case 'symbol': return { type: 'symbol', description: String(v), objectId: keep(v, group) };
      default: break;
    }
    if (v === null) return { type: 'object', subtype: 'null', value: null };
    const type = typeof v === 'function' ? 'function' : 'object';
    if (byValue) {
      const json = JSON.stringify(v);
      return { type, value: json === undefined ? undefined : JSON.parse(json) };
    }
    const out = { type, className: className(v), objectId: keep(v, group) };
    const sub = type === 'object' ? subtype(v) : undefined;
    if (sub) out.subtype = sub;
    if (type === 'function') out.description = String(v);
    else if (sub === 'node') out.description = nodeDescription(v);
    else if (sub === 'array') out.description = 'Array(' + v.length + ')';
    else if (sub === 'error') out.description = errorDescription(v);
    else out.description = out.className;
    return out;
  };
  const exception = (e) => {
    const ex = remote(e, false);
    if (e instanceof Error) ex.description = errorDescription(e);
    else ex.description = String(e);
    return {
      exceptionDetails: {
        exceptionId: 1,
        text: 'Uncaught',
        lineNumber: 0,
        columnNumber: 0,
        exception: ex,
      },
    };
  };
  const argument = (a) => {
    if (a.objectId !== undefined) return lookup(a.objectId);
    if (a.unserializableValue !== undefined) {
      const u = a.unserializableValue;
      if (u === 'NaN') return NaN;
      if (u === 'Infinity') return Infinity;
      if (u === '-Infinity') return -Infinity;
      if (u === '-0') return -0;
      if (/^-?\d+n$/.test(u)) return BigInt(u.slice(0, -1));
      throw new Missing('Invalid unserializable value');
    }
    return a.value;
  };
  // Runs `run` and answers with its value, awaited when asked.
  const answer = (run, p) => {
    let value;
    try {
      value = run();
    } catch (e) {
      if (e instanceof Missing) throw e;
      return exception(e);
    }
    const done = (v) => ({ result: remote(v, p.returnByValue, p.objectGroup) });
    if (p.awaitPromise && value instanceof Promise) {
      return value.then(done, (e) => exception(e));
    }
    return done(value);
  };

  const describe = (n, depth) => {
    const d = {
      nodeId: nodeId(n),
      backendNodeId: nodeId(n),
      nodeType: n.nodeType,
      nodeName: n.nodeName,
      localName: n.localName || '',
      nodeValue: n.nodeValue || '',
      childNodeCount: n.childNodes ? n.childNodes.length : 0,
    };
    if (n.nodeType === 1) {
      d.attributes = [];
      for (const a of Array.from(n.attributes || [])) d.attributes.push(a.name, a.value);
    }
    if (n.nodeType === 9) {
      d.documentURL = String(n.URL || location.href);
      d.baseURL = String(n.baseURI || location.href);
      d.xmlVersion = '';
      d.compatibilityMode = n.compatMode === 'BackCompat' ? 'QuirksMode' : 'NoQuirksMode';
    }
    if (n.nodeType === 10) {
      d.publicId = n.publicId || '';
      d.systemId = n.systemId || '';
    }
    if (depth !== 0 && n.childNodes) {
      d.children = Array.from(n.childNodes, (c) => describe(c, depth - 1));
    }
    return d;
  };
  const quads = (el) => Array.from(el.getClientRects ? el.getClientRects() : [])
    .filter((r) => r.width > 0 && r.height > 0)
    .map((r) => [r.left, r.top, r.right, r.top, r.right, r.bottom, r.left, r.bottom]);
  const page = () => ({
    url: String(location.href),
    title: String(document.title || ''),
  });

  const ops = {
    evaluate(p) {
      return answer(() => (0, eval)(p.expression), p);
    },
    call(p) {
      const self = p.objectId !== undefined ? lookup(p.objectId) : globalThis;
      const args = (p.arguments || []).map(argument);
      let fn;
      try {
        fn = (0, eval)('(' + p.functionDeclaration + '\n)');
      } catch (e) {
        return exception(e);
      }
      if (typeof fn !== 'function') {
        return exception(new TypeError('Given expression does not evaluate to a function'));
      }
      return answer(() => fn.apply(self, args), p);
    },
    properties(p) {
      const obj = lookup(p.objectId);
      const result = [];
      if (obj !== null && (typeof obj === 'object' || typeof obj === 'function')) {
        for (const name of Object.getOwnPropertyNames(obj)) {
          const d = Object.getOwnPropertyDescriptor(obj, name);
          if (!d || !('value' in d)) continue;
          result.push({
            name,
            value: remote(d.value, false, p.objectGroup),
            writable: !!d.writable,
            configurable: !!d.configurable,
            enumerable: !!d.enumerable,
            isOwn: true,
          });
        }
      }
      return { result, internalProperties: [] };
    },
    release(p) {
      table.objects.delete(p.objectId);
      return {};
    },
    releaseGroup(p) {
      for (const id of table.groups.get(p.objectGroup) || []) table.objects.delete(id);
      table.groups.delete(p.objectGroup);
      return {};
    },
    document(p) {
      return { root: describe(document, p.depth === undefined ? 1 : p.depth) };
    },
    describeNode(p) {
      return { node: describe(element(p), p.depth === undefined ? 0 : p.depth) };
    },
    resolveNode(p) {
      return { object: remote(element(p), false, p.objectGroup) };
    },
    requestNode(p) {
      return { nodeId: nodeId(element(p)) };
    },
    querySelector(p) {
      const found = element(p).querySelector(p.selector);
      return { nodeId: found ? nodeId(found) : 0 };
    },
    querySelectorAll(p) {
      return { nodeIds: Array.from(element(p).querySelectorAll(p.selector), nodeId) };
    },
    outerHTML(p) {
      const n = element(p);
      if (n.nodeType === 9) return { outerHTML: n.documentElement ? n.documentElement.outerHTML : '' };
      return { outerHTML: n.nodeType === 1 ? n.outerHTML : String(n.nodeValue || '') };
    },
    focus(p) {
      const n = element(p);
      if (typeof n.focus === 'function') n.focus();
      return {};
    },
    scrollIntoView(p) {
      const n = element(p);
      const el = n.nodeType === 1 ? n : n.parentElement;
      if (el && el.scrollIntoView) el.scrollIntoView({ block: 'center', inline: 'center' });
      return {};
    },
    contentQuads(p) {
      const n = element(p);
      const el = n.nodeType === 1 ? n : n.parentElement;
      const q = el ? quads(el) : [];
      if (!q.length) throw new Missing('Could not compute content quads.');
      return { quads: q };
    },
    boxModel(p) {
      const n = element(p);
      const el = n.nodeType === 1 ? n : n.parentElement;
      const q = el ? quads(el) : [];
      if (!q.length) throw new Missing('Could not compute box model.');
      const r = el.getBoundingClientRect();
      const quad = [r.left, r.top, r.right, r.top, r.right, r.bottom, r.left, r.bottom];
      return { model: { content: quad, padding: quad, border: quad, margin: quad, width: r.width, height: r.height } };
    },
    layout() {
      const w = innerWidth;
      const h = innerHeight;
      const root = document.documentElement;
      const width = Math.max(w, root ? root.scrollWidth : 0);
      const height = Math.max(h, root ? root.scrollHeight : 0);
      const view = { offsetX: 0, offsetY: 0, pageX: scrollX, pageY: scrollY, clientWidth: w, clientHeight: h, scale: 1, zoom: 1 };
      const layout = { pageX: scrollX, pageY: scrollY, clientWidth: w, clientHeight: h };
      const size = { x: 0, y: 0, width, height };
      return {
        layoutViewport: layout, visualViewport: view, contentSize: size,
        cssLayoutViewport: layout, cssVisualViewport: view, cssContentSize: size,
      };
    },
    page,
  };

  for (const r of (request.params && request.params.release) || []) {
    if (r.objectId !== undefined) ops.release(r);
    else ops.releaseGroup(r);
  }
  // Every answer names the table's epoch, so the endpoint sees a realm
  // that was replaced under it (the session restored on another worker).
  const answered = (out) => ({ epoch: table.epoch, out });
  const failed = (e) => answered(e instanceof Missing ? { error: e.message } : exception(e));
  const op = ops[request.op];
  if (!op) return answered({ error: 'unknown operation ' + request.op });
  try {
    const out = op(request.params || {});
    if (out instanceof Promise) return out.then(answered, failed);
    return answered(out);
  } catch (e) {
    return failed(e);
  }
})
