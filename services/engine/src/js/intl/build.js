// Intl's objects (see intl.js), evaluated the first time a page uses Intl
// or a toLocaleString method: most pages never do, and this is the larger
// part of it. Returns the Intl namespace object.
(function (internals) {
  'use strict';
  const { hidden } = internals;

  const toText = (v) => (v === undefined || v === null ? '' : String(v));
  const localeOf = (locales) => {
    const first = Array.isArray(locales) ? locales[0] : locales;
    if (first === undefined || first === null || first === '') return 'en-US';
    const tag = toText(first);
    if (!/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(tag)) throw new RangeError(`Incorrect locale information provided`);
    return tag;
  };
  const option = (options, name, allowed, fallback) => {
    const v = options[name];
    if (v === undefined) return fallback;
    const s = toText(v);
    if (allowed && !allowed.includes(s)) throw new RangeError(`Value ${s} out of range for Intl options property ${name}`);
    return s;
  };
  const digits = (options, name, min, max, fallback) => {
    const v = options[name];
    if (v === undefined) return fallback;
    const n = Math.floor(Number(v));
    if (!(n >= min && n <= max)) throw new RangeError(`${name} value is out of range.`);
    return n;
  };

  // ---- numbers ------------------------------------------------------------
  // Decimal and group separators by language (the rest of the format is en-US).
  const SEPARATORS = { de: [',', '.'], es: [',', '.'], it: [',', '.'], nl: [',', '.'], pt: [',', '.'], id: [',', '.'], tr: [',', '.'], da: [',', '.'], fr: [',', '\u202f'], ru: [',', '\u00a0'], pl: [',', '\u00a0'], sv: [',', '\u00a0'], nb: [',', '\u00a0'], fi: [',', '\u00a0'], cs: [',', '\u00a0'], uk: [',', '\u00a0'], 'de-CH': ['.', '’'] };
  const separatorsOf = (locale) => SEPARATORS[locale] || SEPARATORS[locale.split('-')[0]] || ['.', ','];
  const CURRENCY_SYMBOLS = { USD: '$', EUR: '€', GBP: '£', JPY: '¥', CNY: 'CN¥', INR: '₹', KRW: '₩', CAD: 'CA$', AUD: 'A$', BRL: 'R$', MXN: 'MX$', ILS: '₪', VND: '₫', NZD: 'NZ$', HKD: 'HK$', TWD: 'NT$', PHP: '₱' };
  const ZERO_DECIMAL_CURRENCIES = ['JPY', 'KRW', 'VND', 'CLP', 'ISK', 'HUF', 'TWD', 'UGX', 'XAF', 'XOF'];
  const COMPACT = [[1e12, 'T'], [1e9, 'B'], [1e6, 'M'], [1e3, 'K']];
  const group = (int, sep) => int.replace(/\B(?=(\d{3})+(?!\d))/g, sep);
  class NumberFormat {
    constructor(locales, options = {}) {
      options = options === undefined ? {} : Object(options);
      const locale = localeOf(locales);
      const style = option(options, 'style', ['decimal', 'percent', 'currency', 'unit'], 'decimal');
      const currency = options.currency === undefined ? undefined : toText(options.currency).toUpperCase();
      if (style === 'currency' && currency === undefined) throw new TypeError('Currency code is required with currency style.');
      const currencyDigits = currency && ZERO_DECIMAL_CURRENCIES.includes(currency) ? 0 : 2;
      const notation = option(options, 'notation', ['standard', 'scientific', 'engineering', 'compact'], 'standard');
      const minFD = digits(options, 'minimumFractionDigits', 0, 100, undefined);
      const maxFD = digits(options, 'maximumFractionDigits', 0, 100, undefined);
      const defaultMin = style === 'currency' && notation !== 'compact' ? currencyDigits : 0;
      const defaultMax = style === 'currency' && notation !== 'compact' ? Math.max(currencyDigits, minFD ?? 0) : style === 'percent' ? Math.max(0, minFD ?? 0) : notation === 'compact' ? 0 : Math.max(3, minFD ?? 0);
      const min = minFD ?? Math.min(defaultMin, maxFD ?? defaultMin);
      const max = maxFD ?? Math.max(defaultMax, min);
      if (min > max) throw new RangeError('maximumFractionDigits value is out of range.');
      hidden(this, '_o', {
        locale, numberingSystem: 'latn', style, currency, currencyDisplay: option(options, 'currencyDisplay', ['symbol', 'narrowSymbol', 'code', 'name'], 'symbol'),
        unit: options.unit === undefined ? undefined : toText(options.unit), unitDisplay: option(options, 'unitDisplay', ['short', 'narrow', 'long'], 'short'),
        minimumIntegerDigits: digits(options, 'minimumIntegerDigits', 1, 21, 1),
        minimumFractionDigits: min, maximumFractionDigits: max,
        minimumSignificantDigits: digits(options, 'minimumSignificantDigits', 1, 21, undefined),
        maximumSignificantDigits: digits(options, 'maximumSignificantDigits', 1, 21, undefined),
        useGrouping: options.useGrouping === undefined ? 'auto' : options.useGrouping === false || options.useGrouping === 'false' ? false : 'auto',
        notation, compactDisplay: option(options, 'compactDisplay', ['short', 'long'], 'short'),
        signDisplay: option(options, 'signDisplay', ['auto', 'never', 'always', 'exceptZero', 'negative'], 'auto'),
      });
      if (this._o.minimumSignificantDigits !== undefined && this._o.maximumSignificantDigits === undefined) this._o.maximumSignificantDigits = 21;
      if (this._o.maximumSignificantDigits !== undefined && this._o.minimumSignificantDigits === undefined) this._o.minimumSignificantDigits = 1;
    }
    resolvedOptions() {
      const out = {};
      for (const [k, v] of Object.entries(this._o)) if (v !== undefined) out[k] = v;
      return out;
    }
    get format() { return (n) => this._format(n); }
    // The digits of |x| as the options round them: [integer, fraction].
    _digits(x) {
      const o = this._o;
      let text;
      if (o.maximumSignificantDigits !== undefined) {
        text = x === 0 ? '0' : Number(x.toPrecision(o.maximumSignificantDigits)).toString();
        if (/e/.test(text)) text = BigInt(Math.round(Number(text))).toString();
        const sig = text.replace('.', '').replace(/^0+/, '').length;
        if (sig < o.minimumSignificantDigits) {
          const [i, f = ''] = text.split('.');
          text = i + '.' + f.padEnd(f.length + o.minimumSignificantDigits - sig, '0');
        }
      } else {
        text = x < 1e21 ? x.toFixed(o.maximumFractionDigits) : BigInt(x).toString();
        let [i, f = ''] = text.split('.');
        f = f.replace(/0+$/, '');
        if (f.length < o.minimumFractionDigits) f = f.padEnd(o.minimumFractionDigits, '0');
        text = f ? `${i}.${f}` : i;
      }
      const [int, frac = ''] = text.split('.');
      return [int.padStart(o.minimumIntegerDigits, '0'), frac];
    }
    _format(value) {
      const o = this._o;
      const number = Number(value);
      if (Number.isNaN(number)) return 'NaN';
      const [decimalSep, groupSep] = separatorsOf(o.locale);
      const negative = number < 0 || Object.is(number, -0);
      let x = Math.abs(number);
      if (o.style === 'percent') x *= 100;
      if (!Number.isFinite(x)) return this._affix(negative, '∞', false);
      let suffix = '';
      let rounding = this;
      if (o.notation === 'compact') {
        // CLDR's short forms: 1.2K, 12K, 123K, 1.5M; a value that rounds
        // up to the next thousand takes the next unit (999,999 is 1M).
        const unitAt = COMPACT.findIndex(([size]) => x >= size);
        let index = unitAt;
        const explicit = o.maximumSignificantDigits !== undefined || o.maximumFractionDigits > 0;
        const scaled = (i) => (i < 0 ? x : x / COMPACT[i][0]);
        const pick = (v) => (explicit ? this : new NumberFormat('en-US', { maximumSignificantDigits: v < 100 ? 2 : 3, maximumFractionDigits: 0 }));
        if (index >= 0 || x >= 100) {
          rounding = pick(scaled(index));
          if (index > 0 && Number(rounding._digits(scaled(index)).join('.')) >= 1000) index -= 1;
          rounding = pick(scaled(index));
        }
        x = scaled(index);
        if (index >= 0) {
          const letter = COMPACT[index][1];
          suffix = o.compactDisplay === 'long' ? ' ' + { T: 'trillion', B: 'billion', M: 'million', K: 'thousand' }[letter] : letter;
        }
      }
      const [int, frac] = rounding._digits(x);
      const isZero = /^0*$/.test(int + frac);
      const body = (o.useGrouping ? group(int, groupSep) : int) + (frac ? decimalSep + frac : '') + suffix;
      return this._affix(negative, body, isZero);
    }
    _affix(negative, body, isZero = false) {
      const o = this._o;
      let sign = '';
      if (o.signDisplay === 'never') sign = '';
      else if (o.signDisplay === 'always') sign = negative ? '-' : '+';
      else if (o.signDisplay === 'exceptZero') sign = isZero ? '' : negative ? '-' : '+';
      else if (o.signDisplay === 'negative') sign = negative && !isZero ? '-' : '';
      else sign = negative ? '-' : '';
      if (o.style === 'percent') return `${sign}${body}%`;
      if (o.style === 'currency') {
        const code = o.currency;
        if (o.currencyDisplay === 'code') return `${sign}${code}\u00a0${body}`;
        if (o.currencyDisplay === 'name') return `${sign}${body} ${code === 'USD' ? 'US dollars' : code === 'EUR' ? 'euros' : code === 'GBP' ? 'British pounds' : code}`;
        const symbol = o.currencyDisplay === 'narrowSymbol' ? (CURRENCY_SYMBOLS[code] || code).replace(/^[A-Z]+(?=\W)/, '') : (CURRENCY_SYMBOLS[code] || code);
        return `${sign}${symbol}${/^[A-Z]+$/.test(symbol) ? '\u00a0' : ''}${body}`;
      }
      if (o.style === 'unit' && o.unit) {
        const UNITS = { kilometer: ['km', 'kilometers'], meter: ['m', 'meters'], centimeter: ['cm', 'centimeters'], mile: ['mi', 'miles'], kilogram: ['kg', 'kilograms'], gram: ['g', 'grams'], liter: ['L', 'liters'], second: ['sec', 'seconds'], minute: ['min', 'minutes'], hour: ['hr', 'hours'], day: ['day', 'days'], byte: ['byte', 'bytes'], kilobyte: ['kB', 'kilobytes'], megabyte: ['MB', 'megabytes'], gigabyte: ['GB', 'gigabytes'], percent: ['%', 'percent'], celsius: ['°C', 'degrees Celsius'], fahrenheit: ['°F', 'degrees Fahrenheit'], 'kilometer-per-hour': ['km/h', 'kilometers per hour'], 'mile-per-hour': ['mph', 'miles per hour'] };
        const [short, long] = UNITS[o.unit] || [o.unit, o.unit];
        if (o.unitDisplay === 'long') return `${sign}${body} ${long}`;
        if (o.unitDisplay === 'narrow' || short === '%' || short.startsWith('°')) return `${sign}${body}${short}`;
        return `${sign}${body} ${short}`;
      }
      return sign + body;
    }
    formatToParts(value) {
      const text = this._format(value);
      const parts = [];
      for (const [token] of text.matchAll(/\d+|[.,]|[^\d.,]+/g)) {
        const type = /^\d+$/.test(token) ? (parts.some((p) => p.type === 'decimal') ? 'fraction' : 'integer') : token === '.' ? 'decimal' : token === ',' ? 'group' : token === '-' ? 'minusSign' : token === '+' ? 'plusSign' : token === '%' ? 'percentSign' : 'literal';
        parts.push({ type: type === 'literal' && this._o.style === 'currency' ? 'currency' : type, value: token });
      }
      return parts;
    }
    formatRange(a, b) { return `${this._format(a)}–${this._format(b)}`; }
    static supportedLocalesOf(locales) { return (Array.isArray(locales) ? locales : locales === undefined ? [] : [locales]).map(toText); }
  }

  // ---- dates --------------------------------------------------------------
  const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
  const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
  // CLDR puts U+202F before AM/PM; Chromium writes a plain space there, for
  // pages that parse the result, and so does this.
  const PERIOD_SPACE = ' ';
  const DATE_STYLES = {
    full: { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' },
    long: { year: 'numeric', month: 'long', day: 'numeric' },
    medium: { year: 'numeric', month: 'short', day: 'numeric' },
    short: { year: '2-digit', month: 'numeric', day: 'numeric' },
  };
  const TIME_STYLES = {
    full: { hour: 'numeric', minute: '2-digit', second: '2-digit', timeZoneName: 'long' },
    long: { hour: 'numeric', minute: '2-digit', second: '2-digit', timeZoneName: 'short' },
    medium: { hour: 'numeric', minute: '2-digit', second: '2-digit' },
    short: { hour: 'numeric', minute: '2-digit' },
  };
  const FIELDS = ['weekday', 'era', 'year', 'month', 'day', 'hour', 'minute', 'second', 'fractionalSecondDigits', 'timeZoneName'];
  class DateTimeFormat {
    constructor(locales, options = {}, defaults = 'date') {
      options = options === undefined ? {} : Object(options);
      const locale = localeOf(locales);
      const timeZone = options.timeZone === undefined ? 'UTC' : toText(options.timeZone);
      if (!/^(utc|etc\/utc|gmt|etc\/gmt)$/i.test(timeZone)) {
        // Other zones need the time zone database the guest lacks.
        if (!/^[A-Za-z_]+(\/[A-Za-z_+-]+)*$/.test(timeZone)) throw new RangeError(`Invalid time zone specified: ${timeZone}`);
      }
      const o = { locale, calendar: 'gregory', numberingSystem: 'latn', timeZone: /^(etc\/)?(utc|gmt)$/i.test(timeZone) ? 'UTC' : timeZone };
      const dateStyle = option(options, 'dateStyle', ['full', 'long', 'medium', 'short'], undefined);
      const timeStyle = option(options, 'timeStyle', ['full', 'long', 'medium', 'short'], undefined);
      let fields = {};
      for (const f of FIELDS) if (options[f] !== undefined) fields[f] = toText(options[f]);
      if ((dateStyle || timeStyle) && Object.keys(fields).length) throw new TypeError(`Can't set option ${Object.keys(fields)[0]} when ${dateStyle ? 'dateStyle' : 'timeStyle'} is used`);
      if (dateStyle || timeStyle) fields = { ...(dateStyle ? DATE_STYLES[dateStyle] : {}), ...(timeStyle ? TIME_STYLES[timeStyle] : {}) };
      if (!Object.keys(fields).length) {
        if (defaults !== 'time') Object.assign(fields, { year: 'numeric', month: 'numeric', day: 'numeric' });
        if (defaults !== 'date') Object.assign(fields, { hour: 'numeric', minute: '2-digit', second: '2-digit' });
      }
      const hour12 = options.hour12 !== undefined ? !!options.hour12 : options.hourCycle !== undefined ? ['h11', 'h12'].includes(toText(options.hourCycle)) : true;
      hidden(this, '_o', { ...o, ...(dateStyle ? { dateStyle } : {}), ...(timeStyle ? { timeStyle } : {}), ...fields, ...(fields.hour ? { hourCycle: hour12 ? 'h12' : 'h23', hour12 } : {}) });
      hidden(this, '_styles', { dateStyle, timeStyle });
    }
    resolvedOptions() { return { ...this._o }; }
    get format() { return (d) => this._format(d); }
    _format(date) {
      const t = date === undefined ? Date.now() : date instanceof Date ? date.getTime() : Number(date);
      if (!Number.isFinite(t)) throw new RangeError('Invalid time value');
      return this.formatToParts(t).map((p) => p.value).join('');
    }
    formatToParts(date) {
      const t = date === undefined ? Date.now() : date instanceof Date ? date.getTime() : Number(date);
      if (!Number.isFinite(t)) throw new RangeError('Invalid time value');
      const d = new Date(t);
      const o = this._o;
      const pad = (n) => String(n).padStart(2, '0');
      const parts = [];
      const lit = (value) => { if (value) parts.push({ type: 'literal', value }); };
      const year = d.getUTCFullYear();
      const monthIndex = d.getUTCMonth();
      const yearText = o.year === '2-digit' ? pad(year % 100) : String(year);
      const dayText = o.day === '2-digit' ? pad(d.getUTCDate()) : String(d.getUTCDate());
      const textMonth = o.month === 'long' || o.month === 'short' || o.month === 'narrow';
      const monthText = o.month === 'long' ? MONTHS[monthIndex] : o.month === 'short' ? MONTHS[monthIndex].slice(0, 3) : o.month === 'narrow' ? MONTHS[monthIndex][0] : o.month === '2-digit' ? pad(monthIndex + 1) : String(monthIndex + 1);
      const weekdayText = o.weekday === 'long' ? DAYS[d.getUTCDay()] : o.weekday === 'short' ? DAYS[d.getUTCDay()].slice(0, 3) : o.weekday === 'narrow' ? DAYS[d.getUTCDay()][0] : '';
      // The date: "Tuesday, December 1, 2026", "Dec 1, 2026", "12/1/2026".
      const hasDate = o.year || o.month || o.day || o.weekday;
      if (o.weekday) { parts.push({ type: 'weekday', value: weekdayText }); if (o.year || o.month || o.day) lit(', '); }
      if (textMonth) {
        if (o.month) parts.push({ type: 'month', value: monthText });
        if (o.day) { lit(' '); parts.push({ type: 'day', value: dayText }); }
        if (o.year) { lit(o.day ? ', ' : ' '); parts.push({ type: 'year', value: yearText }); }
      } else {
        const numeric = [];
        if (o.month) numeric.push({ type: 'month', value: monthText });
        if (o.day) numeric.push({ type: 'day', value: dayText });
        if (o.year) numeric.push({ type: 'year', value: yearText });
        numeric.forEach((p, i) => { if (i) lit('/'); parts.push(p); });
      }
      if (o.hour || o.minute || o.second) {
        if (hasDate) lit(this._styles.dateStyle === 'full' || this._styles.dateStyle === 'long' ? ' at ' : ', ');
        let hour = d.getUTCHours();
        const h12 = o.hour12 !== false && o.hour !== undefined;
        const period = hour < 12 ? 'AM' : 'PM';
        if (h12) hour = hour % 12 || 12;
        if (o.hour) parts.push({ type: 'hour', value: o.hour === '2-digit' || (!h12 && o.minute) ? pad(hour) : String(hour) });
        if (o.minute) { if (o.hour) lit(':'); parts.push({ type: 'minute', value: o.hour || o.minute === '2-digit' ? pad(d.getUTCMinutes()) : String(d.getUTCMinutes()) }); }
        if (o.second) { if (o.hour || o.minute) lit(':'); parts.push({ type: 'second', value: o.minute ? pad(d.getUTCSeconds()) : String(d.getUTCSeconds()) }); }
        if (o.fractionalSecondDigits) { lit('.'); parts.push({ type: 'fractionalSecond', value: String(d.getUTCMilliseconds()).padStart(3, '0').slice(0, Number(o.fractionalSecondDigits)) }); }
        if (h12 && o.hour) { lit(PERIOD_SPACE); parts.push({ type: 'dayPeriod', value: period }); }
        if (o.timeZoneName) { lit(' '); parts.push({ type: 'timeZoneName', value: o.timeZoneName === 'long' ? 'Coordinated Universal Time' : 'UTC' }); }
      }
      return parts;
    }
    formatRange(a, b) { return `${this._format(a)} – ${this._format(b)}`; }
    static supportedLocalesOf(locales) { return NumberFormat.supportedLocalesOf(locales); }
  }

  // ---- plurals, relative times, lists ------------------------------------
  class PluralRules {
    constructor(locales, options = {}) {
      options = options === undefined ? {} : Object(options);
      hidden(this, '_o', { locale: localeOf(locales), type: option(options, 'type', ['cardinal', 'ordinal'], 'cardinal') });
    }
    select(n) {
      const x = Math.abs(Number(n));
      if (this._o.type === 'ordinal') {
        const ten = x % 10;
        const hundred = x % 100;
        if (ten === 1 && hundred !== 11) return 'one';
        if (ten === 2 && hundred !== 12) return 'two';
        if (ten === 3 && hundred !== 13) return 'few';
        return 'other';
      }
      return x === 1 ? 'one' : 'other';
    }
    resolvedOptions() { return { ...this._o, pluralCategories: this._o.type === 'ordinal' ? ['few', 'one', 'two', 'other'] : ['one', 'other'] }; }
    static supportedLocalesOf(locales) { return NumberFormat.supportedLocalesOf(locales); }
  }
  const RELATIVE_WORDS = {
    year: ['last year', 'this year', 'next year'], quarter: ['last quarter', 'this quarter', 'next quarter'],
    month: ['last month', 'this month', 'next month'], week: ['last week', 'this week', 'next week'],
    day: ['yesterday', 'today', 'tomorrow'], hour: [null, 'this hour', null], minute: [null, 'this minute', null], second: [null, 'now', null],
  };
  class RelativeTimeFormat {
    constructor(locales, options = {}) {
      options = options === undefined ? {} : Object(options);
      hidden(this, '_o', { locale: localeOf(locales), style: option(options, 'style', ['long', 'short', 'narrow'], 'long'), numeric: option(options, 'numeric', ['always', 'auto'], 'always'), numberingSystem: 'latn' });
    }
    format(value, unit) {
      const n = Number(value);
      let u = toText(unit).replace(/s$/, '');
      if (!(u in RELATIVE_WORDS)) throw new RangeError(`Invalid unit argument for format() '${toText(unit)}'`);
      if (this._o.numeric === 'auto' && Number.isInteger(n) && Math.abs(n) <= 1) {
        const word = RELATIVE_WORDS[u][n + 1];
        if (word) return word;
      }
      const count = new NumberFormat('en-US').format(Math.abs(n));
      if (this._o.style !== 'long') {
        const SHORT = { year: 'yr.', quarter: 'qtr.', month: 'mo.', week: 'wk.', day: 'day', hour: 'hr.', minute: 'min.', second: 'sec.' };
        u = SHORT[u];
        if (u === 'day' && Math.abs(n) !== 1) u = 'days';
        if (u === 'qtr.' && Math.abs(n) !== 1) u = 'qtrs.';
      } else if (Math.abs(n) !== 1) {
        u += 's';
      }
      return n < 0 || Object.is(n, -0) ? `${count} ${u} ago` : `in ${count} ${u}`;
    }
    resolvedOptions() { return { ...this._o }; }
    static supportedLocalesOf(locales) { return NumberFormat.supportedLocalesOf(locales); }
  }
  class ListFormat {
    constructor(locales, options = {}) {
      options = options === undefined ? {} : Object(options);
      hidden(this, '_o', { locale: localeOf(locales), type: option(options, 'type', ['conjunction', 'disjunction', 'unit'], 'conjunction'), style: option(options, 'style', ['long', 'short', 'narrow'], 'long') });
    }
    format(list) {
      const items = Array.from(list, toText);
      const { type, style } = this._o;
      const word = type === 'disjunction' ? 'or' : type === 'unit' ? '' : style === 'long' ? 'and' : '&';
      if (items.length === 0) return '';
      if (items.length === 1) return items[0];
      if (type === 'unit') return items.join(style === 'narrow' ? ' ' : ', ');
      if (items.length === 2) return `${items[0]} ${word} ${items[1]}`;
      return `${items.slice(0, -1).join(', ')}, ${word} ${items[items.length - 1]}`;
    }
    formatToParts(list) { return [{ type: 'literal', value: this.format(list) }]; }
    resolvedOptions() { return { ...this._o }; }
    static supportedLocalesOf(locales) { return NumberFormat.supportedLocalesOf(locales); }
  }

  // ---- collation, segmentation --------------------------------------------
  const baseLetters = (s) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
  class Collator {
    constructor(locales, options = {}) {
      options = options === undefined ? {} : Object(options);
      hidden(this, '_o', { locale: localeOf(locales), usage: option(options, 'usage', ['sort', 'search'], 'sort'), sensitivity: option(options, 'sensitivity', ['base', 'accent', 'case', 'variant'], 'variant'), ignorePunctuation: !!options.ignorePunctuation, collation: 'default', numeric: !!options.numeric, caseFirst: option(options, 'caseFirst', ['upper', 'lower', 'false'], 'false') });
    }
    get compare() { return (a, b) => this._compare(toText(a), toText(b)); }
    _compare(a, b) {
      const { sensitivity, numeric } = this._o;
      const chunks = (s) => (numeric ? s.match(/\d+|\D+/g) || [] : [s]);
      const primary = (x, y) => {
        const [p, q] = [chunks(baseLetters(x).toLowerCase()), chunks(baseLetters(y).toLowerCase())];
        for (let i = 0; i < Math.min(p.length, q.length); i++) {
          if (numeric && /^\d/.test(p[i]) && /^\d/.test(q[i])) { const d = Number(p[i]) - Number(q[i]); if (d) return Math.sign(d); continue; }
          if (p[i] !== q[i]) return p[i] < q[i] ? -1 : 1;
        }
        return Math.sign(p.length - q.length);
      };
      const first = primary(a, b);
      if (first || sensitivity === 'base') return first;
      const accents = baseLetters(a) === a && baseLetters(b) !== b ? -1 : baseLetters(a) !== a && baseLetters(b) === b ? 1 : 0;
      if (accents && sensitivity !== 'case') return accents;
      if (sensitivity === 'accent') return 0;
      for (let i = 0; i < Math.min(a.length, b.length); i++) {
        if (a[i] !== b[i]) {
          const [x, y] = [a[i], b[i]];
          if (x.toLowerCase() === y.toLowerCase()) return x === x.toLowerCase() ? -1 : 1;
        }
      }
      return a === b ? 0 : a < b ? -1 : 1;
    }
    resolvedOptions() { return { ...this._o }; }
    static supportedLocalesOf(locales) { return NumberFormat.supportedLocalesOf(locales); }
  }
  class Segmenter {
    constructor(locales, options = {}) {
      options = options === undefined ? {} : Object(options);
      hidden(this, '_o', { locale: localeOf(locales), granularity: option(options, 'granularity', ['grapheme', 'word', 'sentence'], 'grapheme') });
    }
    segment(input) {
      const text = toText(input);
      const pattern = this._o.granularity === 'word' ? /[\p{L}\p{N}_'’]+|\s+|[^\p{L}\p{N}\s]/gu : this._o.granularity === 'sentence' ? /[^.!?]+[.!?]*\s*/gu : /\P{M}\p{M}*/gu;
      const segments = [...text.matchAll(pattern)].map((m) => ({ segment: m[0], index: m.index, input: text, ...(this._o.granularity === 'word' ? { isWordLike: /[\p{L}\p{N}]/u.test(m[0]) } : {}) }));
      return { [Symbol.iterator]: () => segments[Symbol.iterator](), containing: (i) => segments.find((s) => i >= s.index && i < s.index + s.segment.length) };
    }
    resolvedOptions() { return { ...this._o }; }
  }

  return {
    NumberFormat, DateTimeFormat, PluralRules, RelativeTimeFormat, ListFormat, Collator, Segmenter,
    getCanonicalLocales: (locales) => (locales === undefined ? [] : (Array.isArray(locales) ? locales : [locales]).map((l) => localeOf(l))),
    supportedValuesOf: (key) => ({ currency: Object.keys(CURRENCY_SYMBOLS).sort(), timeZone: ['UTC'], calendar: ['gregory'], numberingSystem: ['latn'], unit: ['byte', 'day', 'hour', 'kilometer', 'meter', 'minute', 'percent', 'second'] })[key] || [],
    [Symbol.toStringTag]: 'Intl',
  };
})
