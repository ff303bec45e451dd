  // Part of the web prelude (js/web/, joined in order by js/mod.rs):
  // XML documents and DOMParser.
  // ---- XML and DOMParser ----------------------------------------------------
  // A small XML parser for what scripts parse (feeds, SVG, API answers):
  // elements with their case and namespace, attributes, text, CDATA and
  // comments, the five predefined entities and character references. Markup
  // that is not well-formed gives a document whose root is <parsererror>,
  // as Chromium's does.
  const XML_ENTITIES = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
  const decodeXml = (text) => text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z][A-Za-z0-9]*);/g, (all, e) => {
    if (e[0] !== '#') { if (!(e in XML_ENTITIES)) throw new SyntaxError(`undefined entity &${e};`); return XML_ENTITIES[e]; }
    const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
    return String.fromCodePoint(code);
  });
  const XML_NAME = /^[A-Za-z_:][-A-Za-z0-9_:.\u00b7-\uffff]*/;
  const XMLNS = 'http://www.w3.org/2000/xmlns/';
  const parseXmlTree = (text) => {
    const doc = g.document;
    const top = { children: [], ns: { '': '', xml: 'http://www.w3.org/XML/1998/namespace' } };
    const stack = [top];
    const attach = (node) => { const parent = stack[stack.length - 1]; if (parent.el) parent.el.appendChild(node); else parent.children.push(node); };
    let i = 0;
    while (i < text.length) {
      const lt = text.indexOf('<', i);
      const chunk = text.slice(i, lt < 0 ? text.length : lt);
      if (chunk) {
        if (stack.length > 1) attach(doc.createTextNode(decodeXml(chunk)));
        else if (chunk.trim()) throw new SyntaxError('text outside the root element');
      }
      if (lt < 0) break;
      const skipTo = (end, what) => { const at = text.indexOf(end, lt); if (at < 0) throw new SyntaxError(`unterminated ${what}`); return at; };
      if (text.startsWith('<?', lt)) { i = skipTo('?>', 'processing instruction') + 2; continue; }
      if (text.startsWith('<!--', lt)) { const end = skipTo('-->', 'comment'); if (stack.length > 1) attach(doc.createComment(text.slice(lt + 4, end))); i = end + 3; continue; }
      if (text.startsWith('<![CDATA[', lt)) { const end = skipTo(']]>', 'CDATA section'); if (stack.length === 1) throw new SyntaxError('CDATA outside the root element'); attach(doc.createTextNode(text.slice(lt + 9, end))); i = end + 3; continue; }
      if (text.startsWith('<!', lt)) {
        let depth = 0; let j = lt + 2;
        for (; j < text.length; j++) { if (text[j] === '[') depth++; else if (text[j] === ']') depth--; else if (text[j] === '>' && depth <= 0) break; }
        i = j + 1;
        continue;
      }
      if (text[lt + 1] === '/') {
        const end = skipTo('>', 'end tag');
        const name = text.slice(lt + 2, end).trim();
        const open = stack.pop();
        if (!open.el || open.name !== name) throw new SyntaxError(`end tag </${name}> does not match <${open.name || ''}>`);
        i = end + 1;
        continue;
      }
      const match = XML_NAME.exec(text.slice(lt + 1));
      if (!match) throw new SyntaxError('a tag without a name');
      const name = match[0];
      let j = lt + 1 + name.length;
      const attrs = [];
      for (;;) {
        while (/\s/.test(text[j] || '')) j++;
        if (text[j] === '>' || text.startsWith('/>', j) || j >= text.length) break;
        const attr = XML_NAME.exec(text.slice(j));
        if (!attr) throw new SyntaxError(`a malformed attribute in <${name}>`);
        j += attr[0].length;
        while (/\s/.test(text[j] || '')) j++;
        if (text[j] !== '=') throw new SyntaxError(`the attribute ${attr[0]} has no value`);
        j++;
        while (/\s/.test(text[j] || '')) j++;
        const quote = text[j];
        if (quote !== '"' && quote !== "'") throw new SyntaxError(`the value of ${attr[0]} is not quoted`);
        const close = text.indexOf(quote, j + 1);
        if (close < 0) throw new SyntaxError('an unterminated attribute value');
        attrs.push([attr[0], decodeXml(text.slice(j + 1, close))]);
        j = close + 1;
      }
      if (j >= text.length) throw new SyntaxError(`unterminated <${name}>`);
      const selfClosing = text.startsWith('/>', j);
      const ns = { ...stack[stack.length - 1].ns };
      for (const [k, v] of attrs) { if (k === 'xmlns') ns[''] = v; else if (k.startsWith('xmlns:')) ns[k.slice(6)] = v; }
      const prefix = name.includes(':') ? name.split(':')[0] : '';
      if (!(prefix in ns)) throw new SyntaxError(`the namespace prefix ${prefix} is not defined`);
      if (stack.length === 1 && top.children.some((c) => c.nodeType === 1)) throw new SyntaxError('more than one root element');
      const el = doc.createElementNS(ns[prefix], name);
      for (const [k, v] of attrs) el.setAttribute(k, v);
      attach(el);
      if (!selfClosing) stack.push({ el, name, ns });
      i = j + (selfClosing ? 2 : 1);
    }
    if (stack.length > 1) throw new SyntaxError(`<${stack[stack.length - 1].name}> is not closed`);
    const root = top.children.find((c) => c.nodeType === 1);
    if (!root) throw new SyntaxError('no root element');
    return root;
  };
  const parseXml = (text, contentType) => {
    try {
      return new InertDocument(parseXmlTree(toText(text)), contentType);
    } catch (e) {
      const error = g.document.createElementNS('http://www.mozilla.org/newlayout/xml/parsererror.xml', 'parsererror');
      error.textContent = `This page contains the following errors: ${e && e.message ? e.message : e}`;
      return new InertDocument(error, contentType);
    }
  };
  const XML_TYPES = ['text/xml', 'application/xml', 'application/xhtml+xml', 'image/svg+xml'];
  class DOMParser {
    parseFromString(string, type) {
      const kind = toText(type);
      if (kind === 'text/html') return inertHtml(toText(string));
      if (XML_TYPES.includes(kind)) return parseXml(string, kind);
      throw new TypeError(`Failed to execute 'parseFromString' on 'DOMParser': The provided value '${kind}' is not a valid enum value of type DOMParserSupportedType.`);
    }
  }
  class XMLSerializer {
    serializeToString(node) {
      if (node instanceof InertDocument) return node.documentElement.outerHTML;
      return node.nodeType === 1 ? node.outerHTML : node.nodeType === 3 ? toText(node.textContent).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;') : '';
    }
  }

