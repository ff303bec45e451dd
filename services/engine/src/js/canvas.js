// The canvas prelude, evaluated after web/ (see js/mod.rs): a 2D context
// that keeps its state but draws no pixels. Charting and plotting libraries
// (Chart.js, dygraphs, …) stop at a missing `getContext('2d')`, and with them
// the rest of the page (legends, labels, size monitors); with a context they
// build everything around the drawing as in a browser. What they draw is not
// painted: a screenshot shows the canvas empty, and `getImageData` reads
// transparent pixels (the capabilities report says so).
(function (internals) {
  'use strict';
  const g = globalThis;
  const { HTMLCanvasElement, hidden, toText } = internals;

  // A font's pixel size, from a CSS font shorthand (`bold 12px sans-serif`).
  const fontSize = (font) => {
    const m = /(\d+(?:\.\d+)?)(px|pt|em|rem|%)/.exec(toText(font));
    if (!m) return 10;
    const n = Number(m[1]);
    return m[2] === 'pt' ? n * 4 / 3 : m[2] === 'em' || m[2] === 'rem' ? n * 16 : m[2] === '%' ? n * 0.16 : n;
  };
  class TextMetrics {
    constructor(text, size) {
      // Half an em per character: an average advance of the sans-serif faces.
      hidden(this, '_m', { width: toText(text).length * size * 0.5, size });
    }
    get width() { return this._m.width; }
    get actualBoundingBoxLeft() { return 0; }
    get actualBoundingBoxRight() { return this._m.width; }
    get actualBoundingBoxAscent() { return this._m.size * 0.8; }
    get actualBoundingBoxDescent() { return this._m.size * 0.2; }
    get fontBoundingBoxAscent() { return this._m.size * 0.8; }
    get fontBoundingBoxDescent() { return this._m.size * 0.2; }
  }
  class CanvasGradient {
    addColorStop(offset, color) { void offset; void color; }
  }
  class CanvasPattern {
    setTransform(transform = undefined) { void transform; }
  }
  class ImageData {
    constructor(sw, sh, settings = undefined) {
      void settings;
      let data = null;
      if (sw instanceof Uint8ClampedArray) { data = sw; sw = sh; sh = data.length / 4 / sw; }
      const width = Math.max(0, sw >>> 0);
      const height = Math.max(0, sh >>> 0);
      hidden(this, '_d', { width, height, data: data || new Uint8ClampedArray(width * height * 4) });
    }
    get width() { return this._d.width; }
    get height() { return this._d.height; }
    get data() { return this._d.data; }
    get colorSpace() { return 'srgb'; }
  }
  const DEFAULTS = {
    fillStyle: '#000000', strokeStyle: '#000000', lineWidth: 1, lineCap: 'butt', lineJoin: 'miter', miterLimit: 10,
    lineDashOffset: 0, font: '10px sans-serif', textAlign: 'start', textBaseline: 'alphabetic', direction: 'ltr',
    globalAlpha: 1, globalCompositeOperation: 'source-over', shadowBlur: 0, shadowColor: 'rgba(0, 0, 0, 0)',
    shadowOffsetX: 0, shadowOffsetY: 0, imageSmoothingEnabled: true, imageSmoothingQuality: 'low', filter: 'none',
    letterSpacing: '0px', wordSpacing: '0px', fontKerning: 'auto', textRendering: 'auto',
  };
  class CanvasRenderingContext2D {
    constructor(canvas) {
      hidden(this, '_canvas', canvas);
      hidden(this, '_state', { ...DEFAULTS, dash: [] });
      hidden(this, '_stack', []);
    }
    get canvas() { return this._canvas; }
    getContextAttributes() { return { alpha: true, colorSpace: 'srgb', desynchronized: false, willReadFrequently: false }; }
    save() { this._stack.push({ ...this._state, dash: this._state.dash.slice() }); }
    restore() { if (this._stack.length) this._state = this._stack.pop(); }
    reset() { this._state = { ...DEFAULTS, dash: [] }; this._stack = []; }
    setLineDash(segments) { this._state.dash = Array.from(segments, Number); }
    getLineDash() { return this._state.dash.slice(); }
    measureText(text) { return new TextMetrics(text, fontSize(this._state.font)); }
    createLinearGradient(x0, y0, x1, y1) { void x0; void y0; void x1; void y1; return new CanvasGradient(); }
    createRadialGradient(x0, y0, r0, x1, y1, r1) { void x0; void y0; void r0; void x1; void y1; void r1; return new CanvasGradient(); }
    createConicGradient(angle, x, y) { void angle; void x; void y; return new CanvasGradient(); }
    createPattern(image, repetition) { void image; void repetition; return new CanvasPattern(); }
    createImageData(sw, sh = undefined) { return sw instanceof ImageData ? new ImageData(sw.width, sw.height) : new ImageData(sw, sh); }
    getImageData(sx, sy, sw, sh) { void sx; void sy; return new ImageData(Math.abs(sw), Math.abs(sh)); }
    putImageData(data, dx, dy) { void data; void dx; void dy; }
    isPointInPath() { return false; }
    isPointInStroke() { return false; }
    getTransform() { return typeof g.DOMMatrix === 'function' ? new g.DOMMatrix() : { a: 1, b: 0, c: 0, d: 1, e: 0, f: 0 }; }
  }
  for (const key of Object.keys(DEFAULTS)) {
    Object.defineProperty(CanvasRenderingContext2D.prototype, key, {
      get() { return this._state[key]; },
      set(v) { this._state[key] = typeof DEFAULTS[key] === 'number' ? Number(v) : toText(v); },
      configurable: true,
    });
  }
  // Drawing, paths and transforms: accepted, nothing painted.
  const NO_OPS = {
    beginPath: 0, closePath: 0, moveTo: 2, lineTo: 2, bezierCurveTo: 6, quadraticCurveTo: 4, arc: 5, arcTo: 5,
    ellipse: 7, rect: 4, roundRect: 4, fill: 0, stroke: 0, clip: 0, fillRect: 4, strokeRect: 4, clearRect: 4,
    fillText: 3, strokeText: 3, drawImage: 3, scale: 2, rotate: 1, translate: 2, transform: 6, setTransform: 0,
    resetTransform: 0, drawFocusIfNeeded: 1, scrollPathIntoView: 0,
  };
  for (const [name, length] of Object.entries(NO_OPS)) {
    const { [name]: op } = { [name]() {} };
    Object.defineProperty(op, 'length', { value: length });
    hidden(CanvasRenderingContext2D.prototype, name, op);
  }

  const contexts = new WeakMap();
  Object.defineProperties(HTMLCanvasElement.prototype, Object.getOwnPropertyDescriptors({
    getContext(contextId, options = undefined) {
      void options;
      if (toText(contextId) !== '2d') return null;
      let context = contexts.get(this);
      if (!context) { context = new CanvasRenderingContext2D(this); contexts.set(this, context); }
      return context;
    },
    // An empty canvas, as the pixels are not kept: a 1×1 transparent PNG.
    toDataURL(type = 'image/png', quality = undefined) {
      void type; void quality;
      return 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    },
    toBlob(callback, type = 'image/png', quality = undefined) {
      void type; void quality;
      g.setTimeout(() => callback(null), 0);
    },
  }));
  // A canvas is 300×150 unless its attributes say otherwise.
  for (const [name, fallback] of [['width', 300], ['height', 150]]) {
    Object.defineProperty(HTMLCanvasElement.prototype, name, {
      get() { const v = parseInt(this.getAttribute(name), 10); return Number.isNaN(v) || v < 0 ? fallback : v; },
      set(v) { this.setAttribute(name, String(Number(v) >>> 0)); },
      configurable: true,
    });
  }
  Object.assign(g, { CanvasRenderingContext2D, CanvasGradient, CanvasPattern, ImageData, TextMetrics });
})
