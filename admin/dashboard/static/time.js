// Times as the reader's local clock, with the UTC instant on hover.
import { html } from './html.js';

const pad = (n, width = 2) => String(n).padStart(width, '0');

export function localTime(ms) {
  const d = new Date(ms);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/** A `<time>` showing local time (with the date when it is not today) and the ISO UTC instant as its title. */
export function Time({ ms, withDate = false }) {
  if (!Number.isFinite(ms)) return null;
  const d = new Date(ms);
  const date = withDate ? `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` : '';
  const iso = d.toISOString();
  return html`<time class="time" datetime=${iso} title=${`${iso} (UTC)`}>${date}${localTime(ms)}</time>`;
}
