  // Part of the DOM prelude (js/dom/, joined in order by js/realm/preludes.rs):
  // collections: live collections (a node's childNodes and children, and
  // the lists getElementsBy* return) as proxies over the tree's current ids.
  // ---- live collections ----------------------------------------------------
  // A live collection: `ids()` is asked again on every read, as an
  // HTMLCollection reflects the tree at the time of each access.
  // A live collection runs its query again only when the tree changed since
  // the last read (the native mutation count), so a loop over it reads one
  // list, as in a browser. Its methods run on the collection itself: an
  // array method such as `forEach` reads the length once and each index as
  // the tree is then, as a browser's does on a live NodeList.
  // The array index a property key names ("0", "17"; not "01", "1e2" or
  // "1 "), or -1. Read a digit at a time: the keys a script reads are a digit
  // or two, and the check it replaces (`String(Number(key)) === key`, then
  // `Number(key)` again) made most of the cost of `list[i]`. No regular
  // expression: page scripts read RegExp.$1 after their own match, and an
  // index read in between (`list[i].src.match(re); RegExp.$2`) must not
  // replace it.
  const MAX_INDEX = 4294967294;
  const arrayIndex = (key) => {
    if (typeof key !== 'string') return -1;
    const length = key.length;
    if (length === 0 || length > 10) return -1;
    let n = 0;
    for (let i = 0; i < length; i++) {
      const digit = key.charCodeAt(i) - 48;
      if (digit < 0 || digit > 9 || (digit === 0 && i === 0 && length > 1)) return -1;
      n = n * 10 + digit;
    }
    return n <= MAX_INDEX ? n : -1;
  };
  // A live collection's state lives on its target under LIVE: the function
  // listing its ids and the node id it is called with, for a node's children
  // the function giving the digest of its child list, the mutation count and
  // digest it last saw, and its wrapped list (null until first read). One
  // handler serves all of them, and every element's child lists share their
  // functions, so a list costs its proxy, its target and this state, and no
  // closures of its own.
  const LIVE = Symbol('live');
  // A child list's first read skips the digest: it wraps the children
  // anyway, and a tree walk reads each list once (QuickJS frees a list no one
  // holds at once, so the next walk makes it again). Its digest is read at
  // the first change after, which wraps the children once more.
  const liveNow = (state) => {
    const v = native.domVersion();
    if (v !== state.version) {
      const fresh = state.version === -1;
      state.version = v;
      if (state.signature !== null && !fresh) {
        const sig = state.signature(state.of);
        if (sig === state.sig && state.list !== null) return state.list;
        state.sig = sig;
      }
      state.list = wrapAll(state.ids(state.of));
    }
    return state.list;
  };
  // `forEach` on a live collection, as Array.prototype.forEach runs it on
  // the proxy (the length read once, then each index still present visited
  // as the tree is then) without its two traps per index: a recursive
  // `node.childNodes.forEach` over a page (Sphinx's search highlight) spent
  // more than a quarter of its time in them. Called on anything else, it is
  // Array.prototype.forEach.
  const arrayForEach = Array.prototype.forEach;
  const apply = Reflect.apply;
  const liveForEach = function forEach(callback, thisArg) {
    const state = this === null || this === undefined ? undefined : this[LIVE];
    if (state === undefined) return apply(arrayForEach, this, [callback, thisArg]);
    if (typeof callback !== 'function') throw new TypeError('not a function');
    const length = liveNow(state).length;
    for (let i = 0; i < length; i++) {
      const list = liveNow(state);
      if (i < list.length) apply(callback, thisArg, [list[i], i, this]);
    }
    return undefined;
  };
  const liveHandler = {
    get(target, key, receiver) {
      if (key === 'length') return liveNow(target[LIVE]).length;
      if (key === 'forEach') {
        // A page that put its own forEach on NodeList.prototype keeps it.
        const own = Reflect.get(target, key, receiver);
        return own === arrayForEach ? liveForEach : own;
      }
      const index = arrayIndex(key);
      if (index >= 0) return liveNow(target[LIVE])[index];
      return Reflect.get(target, key, receiver);
    },
    has(target, key) { return key in liveNow(target[LIVE]) || key in target; },
    ownKeys(target) { return Reflect.ownKeys(liveNow(target[LIVE])); },
    getOwnPropertyDescriptor(target, key) { return Reflect.getOwnPropertyDescriptor(liveNow(target[LIVE]), key); },
  };
  // The target is made as a `Cls` array (not an array whose prototype is set
  // afterwards, which gives each one a shape of its own in QuickJS), so all
  // targets of a kind share one shape.
  const liveCollection = (ids, Cls = HTMLCollection, signature = null, of = undefined) => {
    const target = Reflect.construct(Array, [], Cls);
    Object.defineProperty(target, LIVE, { value: { ids, of, signature, version: -1, sig: -1, list: null }, configurable: true });
    return new Proxy(target, liveHandler);
  };
  // The natives themselves, not arrows around them: a list calls them as
  // `state.ids(state.of)`, and a frame fewer is felt on every list a walk
  // makes.
  const childIds = native.childNodes;
  const childElementIds = native.children;
  const childSignature = native.childSignature;
  // A node's own childNodes and children lists, so that
  // `el.childNodes === el.childNodes` as in browsers. Held weakly: a script
  // that walks a tree reads each element's list once, and keeping every one
  // cost ≈0.5 KB per element (4 MiB of a session on a 300 KB documentation
  // page). A list no one holds is made again unseen — no script kept the old
  // one to compare — and the last RECENT_LISTS read are held, so a loop that
  // reads `el.childNodes[i]` at each step, or a walk below it, does not make
  // its list again each time. The weak references are kept by node id and
  // the dead ones dropped whenever their number has doubled since the last
  // sweep: what was left for each node a walk had passed (a WeakMap entry
  // and a WeakRef whose list was gone) cost ≈160 bytes a node, 2.8 MiB after
  // a walk of that page's 18,000 nodes.
  const weakLists = () => ({ refs: new Map(), kept: 0 });
  const childLists = weakLists();
  const childrenLists = weakLists();
  const RECENT_LISTS = 128;
  const SWEEP_SLACK = 256;
  const recentLists = [];
  let recentAt = 0;
  const sweep = (lists) => {
    for (const [id, ref] of lists.refs) if (ref.deref() === undefined) lists.refs.delete(id);
    lists.kept = lists.refs.size;
  };
  // `node`'s list of `ids` from `lists`, made (as a `Cls`) if none is held.
  const keptList = (lists, node, ids, Cls) => {
    const id = node[ID];
    let list = lists.refs.get(id)?.deref();
    if (!list) {
      list = liveCollection(ids, Cls, childSignature, id);
      lists.refs.set(id, new WeakRef(list));
      if (lists.refs.size > 2 * lists.kept + SWEEP_SLACK) sweep(lists);
    }
    if (recentLists[(recentAt + RECENT_LISTS - 1) % RECENT_LISTS] !== list) {
      recentLists[recentAt] = list;
      recentAt = (recentAt + 1) % RECENT_LISTS;
    }
    return list;
  };
  // The prelude's own walks read a snapshot of a node's children: moving
  // nodes while iterating a live list would skip some.
  const kids = (n) => (n instanceof InertDocument ? n.childNodes : nodeList(native.childNodes(n[ID])));
