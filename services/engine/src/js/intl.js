// The Intl prelude, evaluated after web/ (see js/realm/preludes.rs). QuickJS has no
// Intl; pages call it to show prices, dates and counts, and a missing global
// stops their scripts. This is Intl with English (CLDR en-US) data:
// NumberFormat, DateTimeFormat, PluralRules, RelativeTimeFormat, ListFormat,
// Collator and Segmenter, and the toLocaleString methods of numbers and dates
// on top of them. Other locales are accepted and formatted as en-US, but for
// the decimal and grouping separators of NumberFormat, which follow a small
// table. Times are in UTC (the guest has no time zone database) unless a
// fixed `timeZone` of UTC is asked for. This is the part every realm runs;
// the objects are built on first use.
(function (native, internals) {
  'use strict';
  const g = globalThis;

  // Built on first use, by its own prelude (intl/build.js): most pages never
  // touch it.
  let intl = null;
  const getIntl = () => (intl = intl || native.prelude('intl/build.js')(internals));
  Object.defineProperty(g, 'Intl', {
    get() { const value = getIntl(); Object.defineProperty(g, 'Intl', { value, writable: true, configurable: true }); return value; },
    set(value) { Object.defineProperty(g, 'Intl', { value, writable: true, configurable: true }); },
    configurable: true,
  });
  const define = (proto, name, fn) => Object.defineProperty(proto, name, { value: fn, writable: true, configurable: true });
  define(Number.prototype, 'toLocaleString', function toLocaleString(locales, options) { return new (getIntl().NumberFormat)(locales, options).format(this.valueOf()); });
  define(BigInt.prototype, 'toLocaleString', function toLocaleString(locales, options) { return new (getIntl().NumberFormat)(locales, options).format(this.valueOf()); });
  const dateLocale = (defaults) => function (locales, options) {
    if (Number.isNaN(this.getTime())) return 'Invalid Date';
    return new (getIntl().DateTimeFormat)(locales, options, defaults).format(this);
  };
  define(Date.prototype, 'toLocaleString', dateLocale('all'));
  define(Date.prototype, 'toLocaleDateString', dateLocale('date'));
  define(Date.prototype, 'toLocaleTimeString', dateLocale('time'));
  define(String.prototype, 'localeCompare', function localeCompare(that, locales, options) { return new (getIntl().Collator)(locales, options).compare(String(this), that); });
  define(Array.prototype, 'toLocaleString', function toLocaleString(locales, options) { return Array.from(this, (v) => (v === null || v === undefined ? '' : v.toLocaleString(locales, options))).join(','); });
});
