// timestamptz values as JavaScript Dates for both adapters. The stock parsers build dates with
// Date.UTC or Date.parse, which read years 0-99 as 1900-1999, so a record of year 99 came back
// as 1999. PostgreSQL's text output (DateStyle ISO) is parsed by hand instead: a search decodes
// several hundred of them per request, so the usual shape (a four-digit year from 100 on, no BC)
// is read by character codes and the rest by the full pattern.
const TIMESTAMPTZ =
  /^(\d{4,})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?([+-])(\d{2})(?::(\d{2}))?(?::(\d{2}))?( BC)?$/;

export const TIMESTAMPTZ_OID = 1184;

const ZERO = 48;
const PLUS = 43;
const MINUS = 45;
const DOT = 46;

/** The decimal number in text[from, to), or NaN when a character there is not a digit. */
function digitsAt(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const digit = text.charCodeAt(i) - ZERO;
    if (digit < 0 || digit > 9) return Number.NaN;
    n = n * 10 + digit;
  }
  return n;
}

/** "YYYY-MM-DD HH:MM:SS[.ffffff]±HH[:MM[:SS]]" with a year from 100 to 9999, else undefined. */
function parseUsual(text: string): Date | undefined {
  if (text.charCodeAt(4) !== MINUS) return undefined;
  const year = digitsAt(text, 0, 4);
  if (!(year >= 100)) return undefined;
  let i = 19;
  let ms = 0;
  if (text.charCodeAt(i) === DOT) {
    // Milliseconds: the first three digits of the fraction (Dates hold no finer time).
    for (let scale = 100, digit = text.charCodeAt(++i) - ZERO; digit >= 0 && digit <= 9; ) {
      ms += digit * scale;
      scale /= 10;
      digit = text.charCodeAt(++i) - ZERO;
    }
    ms = Math.floor(ms);
  }
  const sign = text.charCodeAt(i);
  const zone = text.length - i;
  if ((sign !== PLUS && sign !== MINUS) || (zone !== 3 && zone !== 6 && zone !== 9)) return undefined;
  let offsetSeconds = digitsAt(text, i + 1, i + 3) * 3600;
  if (zone >= 6) offsetSeconds += digitsAt(text, i + 4, i + 6) * 60;
  if (zone === 9) offsetSeconds += digitsAt(text, i + 7, i + 9);
  const utc = Date.UTC(
    year,
    digitsAt(text, 5, 7) - 1,
    digitsAt(text, 8, 10),
    digitsAt(text, 11, 13),
    digitsAt(text, 14, 16),
    digitsAt(text, 17, 19),
    ms,
  );
  const time = utc - (sign === MINUS ? -offsetSeconds : offsetSeconds) * 1000;
  return Number.isNaN(time) ? undefined : new Date(time);
}

export function parseTimestamptz(text: string): Date {
  const usual = parseUsual(text);
  if (usual) return usual;
  const m = TIMESTAMPTZ.exec(text);
  if (!m) return new Date(Number.NaN); // infinity and -infinity: not representable
  const [, y, mo, d, h, mi, s, fraction, sign, oh, om, os, bc] = m;
  const year = bc ? 1 - Number(y) : Number(y);
  const date = new Date(0);
  date.setUTCFullYear(year, Number(mo) - 1, Number(d));
  date.setUTCHours(Number(h), Number(mi), Number(s), fraction ? Math.floor(Number(fraction) * 1000) : 0);
  const offsetSeconds = Number(oh) * 3600 + Number(om ?? 0) * 60 + Number(os ?? 0);
  return new Date(date.getTime() - (sign === "-" ? -offsetSeconds : offsetSeconds) * 1000);
}

/** A timestamptz as JSON renders it ("YYYY-MM-DDTHH:MM:SS...", XSD style), as a Date. */
export function parseJsonTimestamptz(text: string): Date {
  return parseTimestamptz(text.replace("T", " "));
}
