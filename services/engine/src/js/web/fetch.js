  // Part of the web prelude (js/web/, joined in order by js/mod.rs):
  // CORS and fetch.
  // ---- CORS ----------------------------------------------------------------
  const SAFE_REQUEST_HEADERS = ['accept', 'accept-language', 'content-language', 'content-type', 'range'];
  const SIMPLE_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain'];
  const SAFE_RESPONSE_HEADERS = ['cache-control', 'content-language', 'content-length', 'content-type', 'expires', 'last-modified', 'pragma'];
  const documentOrigin = () => {
    try { const o = new g.URL(native.url()).origin; return o === 'null' ? null : o; } catch (_) { return null; }
  };
  // `headers` is a Headers object or anything with its `_list` of pairs.
  const unsafeHeaders = (headers) => headers._list
    .filter(([k, v]) => !SAFE_REQUEST_HEADERS.includes(k) || (k === 'content-type' && !SIMPLE_TYPES.includes(v.split(';')[0].trim().toLowerCase())))
    .map(([k]) => k);
  const headerOf = (raw, name) => { const h = raw.find(([k]) => k === name); return h ? h[1] : null; };
  // Whether a cross-origin response may be read: its Access-Control-Allow-Origin
  // names this origin (or `*` without credentials, where credentials also
  // need Access-Control-Allow-Credentials: true).
  const corsAllows = (raw, origin, credentials) => {
    const allow = headerOf(raw, 'access-control-allow-origin');
    if (allow === null) return 'No \'Access-Control-Allow-Origin\' header is present on the requested resource.';
    if (allow.trim() === '*' && !credentials) return null;
    if (allow.trim() !== origin) return `The 'Access-Control-Allow-Origin' header has a value '${allow}' that is not equal to the supplied origin.`;
    if (credentials && toText(headerOf(raw, 'access-control-allow-credentials')).trim() !== 'true') {
      return "The value of the 'Access-Control-Allow-Credentials' header in the response is '' which must be 'true' when the request's credentials mode is 'include'.";
    }
    return null;
  };
  const listHeader = (raw, name) => toText(headerOf(raw, name)).split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  const REDIRECT_STATUSES = [301, 302, 303, 307, 308];
  const MAX_REDIRECTS = 20;
  // One request by the rules of the Fetch standard that matter here:
  // same-origin requests carry cookies; cross-origin ones are CORS requests
  // (a preflight first when not "simple"), or opaque with `no-cors`.
  // Redirects are followed here, hop by hop (the host returns each 3xx as
  // it is), so every hop gets the checks a browser gives it: a CORS check of
  // each cross-origin hop's response, a new preflight where one is needed,
  // the origin turned to `null` after a cross-origin redirect, the body and
  // method dropped for 303 (and 301/302 after a POST), credentials only
  // where the mode allows them, `authorization` dropped across origins.
  // Returns the native response, marked with its type, or throws a
  // TypeError with the reason (also logged, as browsers do).
  const performFetch = (request) => {
    const origin = documentOrigin();
    const first = new g.URL(request.url);
    if (first.protocol === 'data:') {
      const r = native.httpFetch('GET', request.url, [], null, false);
      return { ...r, type: 'basic' };
    }
    const blocked = (url, reason) => {
      native.console('error', `Access to fetch at '${url}' from origin '${origin}' has been blocked by CORS policy: ${reason}`);
      return new TypeError('Failed to fetch');
    };
    let url = request.url;
    let method = request.method;
    let headers = request.headers._list.map(([k, v]) => [k, v]);
    let body = request._bytes;
    // Once a request went cross-origin, the rest of its hops are CORS hops
    // even if they come back; after a redirect between two other origins
    // the request's origin is sent as `null`.
    let tainting = 'basic';
    let sentOrigin = origin;
    for (let hop = 0; ; hop++) {
      const target = new g.URL(url);
      if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new TypeError(`Failed to fetch: the URL scheme '${target.protocol.slice(0, -1)}' is not supported.`);
      const sameOrigin = origin !== null && target.origin === origin && tainting === 'basic';
      let r;
      if (sameOrigin) {
        r = native.httpFetch(method, url, headers, body, request.credentials !== 'omit', false);
      } else {
        if (request.mode === 'same-origin') throw blocked(url, 'the request mode is same-origin');
        const credentials = request.credentials === 'include';
        if (request.mode === 'no-cors') {
          if (!['GET', 'HEAD', 'POST'].includes(method)) throw new TypeError(`Failed to execute 'fetch': '${method}' is unsupported in no-cors mode.`);
          r = native.httpFetch(method, url, headers, body, credentials, false);
          tainting = 'opaque';
        } else {
          tainting = 'cors';
          const originValue = sentOrigin === null ? 'null' : sentOrigin;
          const unsafe = unsafeHeaders({ _list: headers });
          if (!['GET', 'HEAD', 'POST'].includes(method) || unsafe.length) {
            const preflightHeaders = [['origin', originValue], ['access-control-request-method', method]];
            if (unsafe.length) preflightHeaders.push(['access-control-request-headers', unsafe.sort().join(',')]);
            const pre = native.httpFetch('OPTIONS', url, preflightHeaders, null, false, false);
            if (pre.status < 200 || pre.status > 299) throw blocked(url, "Response to preflight request doesn't pass access control check: It does not have HTTP ok status.");
            const refused = corsAllows(pre.headers, originValue, credentials);
            if (refused) throw blocked(url, `Response to preflight request doesn't pass access control check: ${refused}`);
            const methods = listHeader(pre.headers, 'access-control-allow-methods');
            if (!['GET', 'HEAD', 'POST'].includes(method) && !methods.includes(method.toLowerCase()) && !(methods.includes('*') && !credentials)) {
              throw blocked(url, `Method ${method} is not allowed by Access-Control-Allow-Methods in preflight response.`);
            }
            const allowed = listHeader(pre.headers, 'access-control-allow-headers');
            const missing = unsafe.find((h) => !allowed.includes(h) && !(allowed.includes('*') && !credentials));
            if (missing) throw blocked(url, `Request header field ${missing} is not allowed by Access-Control-Allow-Headers in preflight response.`);
          }
          r = native.httpFetch(method, url, headers.concat([['origin', originValue]]), body, credentials, false);
          // Redirect responses are checked too: a hop that does not allow
          // this origin ends the request.
          const refused = corsAllows(r.headers, originValue, credentials);
          if (refused) throw blocked(url === request.url ? url : `${url}' (redirected from '${request.url}`, refused);
        }
      }
      const location = REDIRECT_STATUSES.includes(r.status) ? headerOf(r.headers, 'location') : null;
      if (location === null) return finish(r, url, tainting, request);
      if (request.redirect === 'error') throw new TypeError(`Failed to fetch: ${url} redirected and the request's redirect mode is 'error'.`);
      if (request.redirect === 'manual') return { status: 0, url, headers: [], body: new ArrayBuffer(0), type: 'opaqueredirect' };
      if (hop >= MAX_REDIRECTS) throw new TypeError('Failed to fetch: too many redirects.');
      let next;
      try { next = new g.URL(location, url); } catch (_) { throw new TypeError(`Failed to fetch: the redirect location '${location}' is not a valid URL.`); }
      if (next.username || next.password) throw new TypeError('Failed to fetch: a redirect location may not include credentials.');
      if (tainting === 'cors' && target.origin !== next.origin && sentOrigin !== null && sentOrigin !== target.origin) sentOrigin = null;
      if (target.origin !== next.origin) headers = headers.filter(([k]) => k !== 'authorization');
      if ((r.status === 303 && method !== 'GET' && method !== 'HEAD') || ((r.status === 301 || r.status === 302) && method === 'POST')) {
        method = 'GET';
        body = null;
        headers = headers.filter(([k]) => !['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'].includes(k));
      }
      url = next.href;
    }
  };
  // The response a page may see: opaque ones are empty, CORS ones show only
  // the safelisted headers and those the server exposed.
  const finish = (r, url, tainting, request) => {
    if (tainting === 'opaque') return { status: 0, url: '', headers: [], body: new ArrayBuffer(0), type: 'opaque' };
    const finalUrl = r.url || url;
    if (tainting === 'basic') return { ...r, url: finalUrl, type: 'basic' };
    const credentials = request.credentials === 'include';
    const exposed = listHeader(r.headers, 'access-control-expose-headers');
    const visible = r.headers.filter(([k]) => SAFE_RESPONSE_HEADERS.includes(k) || exposed.includes(k) || (exposed.includes('*') && !credentials));
    return { ...r, url: finalUrl, headers: visible, type: 'cors' };
  };
  const toResponse = (raw, request) => {
    const response = new Response(null, { status: 200 });
    response._status = raw.status;
    response._statusText = STATUS_TEXT[raw.status] || '';
    response._headers = new Headers(raw.headers.filter(([k]) => k !== 'set-cookie' && k !== 'set-cookie2'));
    response._headers._guard = 'immutable';
    response._bytes = request.method === 'HEAD' ? new Uint8Array(0) : new Uint8Array(raw.body);
    response._url = raw.url;
    response._type = raw.type;
    response._redirected = raw.url !== '' && raw.url.split('#')[0] !== request.url.split('#')[0];
    return response;
  };
  const fetch = (input, init) => new Promise((resolve, reject) => {
    let request;
    try { request = new Request(input, init); } catch (e) { reject(e); return; }
    const signal = request._signal;
    if (signal && signal.aborted) { reject(signal.reason); return; }
    // The request goes out in a task of its own, and so does its response.
    queueTask(() => {
      if (signal && signal.aborted) { reject(signal.reason); return; }
      let raw;
      try { raw = performFetch(request); } catch (e) { reject(e instanceof TypeError ? e : new TypeError(`Failed to fetch: ${e && e.message ? e.message : e}`)); return; }
      queueTask(() => {
        if (signal && signal.aborted) reject(signal.reason); else resolve(toResponse(raw, request));
      });
    });
  });

