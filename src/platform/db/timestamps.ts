// timestamptz values as JavaScript Dates for both adapters. The stock parsers build dates with
// Date.UTC or Date.parse, which read years 0-99 as 1900-1999, so a record of year 99 came back
// as 1999. PostgreSQL's text output (DateStyle ISO) is parsed by hand instead.
const TIMESTAMPTZ =
  /^(\d{4,})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?([+-])(\d{2})(?::(\d{2}))?(?::(\d{2}))?( BC)?$/;

export const TIMESTAMPTZ_OID = 1184;

export function parseTimestamptz(text: string): Date {
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
