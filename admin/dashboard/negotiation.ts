/** One media range of an `Accept` header. */
interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

function parseAccept(accept: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of accept.split(',')) {
    const [range, ...params] = part.split(';');
    const [type, subtype] = range.trim().toLowerCase().split('/');
    if (!type || !subtype) continue;
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split('=');
      if (name.trim().toLowerCase() === 'q') q = Number(value);
    }
    ranges.push({ type, subtype, q: Number.isFinite(q) ? q : 0 });
  }
  return ranges;
}

/** The quality the header gives a media type: from its most specific matching range (RFC 9110 §12.5.1). */
function qualityOf(ranges: MediaRange[], type: string, subtype: string): number {
  let best = -1;
  let q = 0;
  for (const range of ranges) {
    const specificity =
      range.type === type && range.subtype === subtype
        ? 2
        : range.type === type && range.subtype === '*'
          ? 1
          : range.type === '*' && range.subtype === '*'
            ? 0
            : -1;
    if (specificity > best) {
      best = specificity;
      q = range.q;
    }
  }
  return q;
}

/**
 * True only when `Accept` ranks `text/html` strictly above `application/json`. A tie goes to JSON, as
 * mountebank's `response.format` lists json first: `*\/*` (curl), no header and `application/json`
 * (mountebank's clients) keep getting JSON; a browser's navigation header prefers HTML.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = parseAccept(accept);
  const html = qualityOf(ranges, 'text', 'html');
  return html > 0 && html > qualityOf(ranges, 'application', 'json');
}
