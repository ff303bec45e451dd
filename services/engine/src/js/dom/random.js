
  // ---- Math.random ----------------------------------------------------------
  // QuickJS seeds Math.random once per realm, from the clock. A realm made
  // once and put back for each document (js/heap.rs) would then give every
  // document the same numbers, so the numbers come from the host's random
  // source instead, 256 at a time, and each document starts a new batch
  // (`begin` in hooks.js): nothing drawn before it is replayed.
  const randomPool = new Float64Array(256);
  let randomNext = randomPool.length;
  const refillRandom = () => {
    const words = new Uint32Array(native.randomBytes(randomPool.length * 8));
    for (let i = 0; i < randomPool.length; i++) {
      // 53 random bits: 27 from one word, 26 from the next.
      randomPool[i] = ((words[2 * i] >>> 5) * 67108864 + (words[2 * i + 1] >>> 6)) / 9007199254740992;
    }
    randomNext = 0;
  };
  const reseedRandom = () => { randomNext = randomPool.length; };
  Object.defineProperty(Math, 'random', {
    value: {
      random() {
        if (randomNext === randomPool.length) refillRandom();
        return randomPool[randomNext++];
      },
    }.random,
    writable: true,
    configurable: true,
  });
