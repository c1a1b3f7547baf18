// The recorded-requests panel: heading with the server's count, filters, pause and clear, and a
// virtualised list (only the rows in view are in the DOM), newest first.
import { Component } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { html } from './html.js';
import { useStore } from './request-tail.js';
import { localTime } from './time.js';

/** Fixed row height (px), so a row's place is its position times this; matches `.rows .row` in style.css. */
export const ROW_HEIGHT = 30;
const OVERSCAN = 8;
const METHODS = ['', 'GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

/** The stub that served an entry, as short text: its id (shortened) or its index at the time. */
export function stubLabel(entry) {
  if (entry.kind === 'miss') return 'no stub matched';
  if (entry.kind === 'none') return '';
  if (entry.stubId !== undefined) return `stub ${entry.stubId.length > 13 ? `${entry.stubId.slice(0, 8)}…` : entry.stubId}`;
  return `stub #${entry.stubIndex}`;
}

/** A row renders once per entry: entries never change, and only a move or selection re-renders it. */
class Row extends Component {
  shouldComponentUpdate(next) {
    return next.entry !== this.props.entry || next.top !== this.props.top || next.selected !== this.props.selected;
  }

  render({ entry, top, selected, onSelect }) {
    const iso = Number.isFinite(entry.time) ? new Date(entry.time).toISOString() : '';
    return html`<li class=${`row ${entry.kind}${selected ? ' selected' : ''}`} style=${`transform:translateY(${top}px)`}
      data-index=${entry.index} data-ts=${entry.time}>
      <button type="button" class="row-button" aria-pressed=${selected} onClick=${() => onSelect(entry)}>
        <time class="time" datetime=${iso} title=${`${iso} (UTC)`}>${localTime(entry.time)}</time>
        <span class="method">${entry.method}</span>
        <code class="target">${entry.target}</code>
        <span class="served">${entry.status ?? ''}${entry.latencyMs !== undefined ? html` <span class="muted">${entry.latencyMs} ms</span>` : ''}</span>
        <span class="outcome">${stubLabel(entry)}</span>
      </button>
    </li>`;
  }
}

function Filters({ store }) {
  const [filter, setFilter] = useState(store.filter);
  const change = (name, value) => {
    const next = { ...filter, [name]: value };
    setFilter(next);
    store.setFilter(next);
  };
  const text = (name, label, size) => html`<input class="filter" aria-label=${label} placeholder=${label} size=${size} value=${filter[name] ?? ''}
    onInput=${(e) => change(name, e.target.value)} />`;
  return html`<div class="filters" role="group" aria-label="filters">
    <label class="inline"><input type="checkbox" id="misses-only" checked=${Boolean(filter.missesOnly)} onChange=${(e) => change('missesOnly', e.target.checked)} /> misses only</label>
    <select aria-label="method" value=${filter.method ?? ''} onChange=${(e) => change('method', e.target.value)}>
      ${METHODS.map((m) => html`<option value=${m}>${m || 'any method'}</option>`)}
    </select>
    ${text('path', 'path contains', 12)} ${text('status', 'status (404, 4xx)', 8)} ${text('flowId', 'flow id', 8)}
  </div>`;
}

function VirtualList({ store, selected, onSelect }) {
  const viewport = useRef(null);
  const [scroll, setScroll] = useState({ top: 0, height: 480 });
  const shown = useRef({ count: 0, newest: undefined });
  const visible = store.visible;
  const count = visible.length;

  // Newer entries push the list down: keep what the reader looks at in place unless they sit at the top.
  // The scroll position comes from the scroll listener: reading node.scrollTop here would force a layout per frame.
  useLayoutEffect(() => {
    const node = viewport.current;
    const newest = visible[count - 1]?.index;
    const before = shown.current;
    if (node && scroll.top > 0 && before.newest !== undefined && newest !== before.newest) {
      let added = 0;
      for (let i = count - 1; i >= 0 && visible[i].index > before.newest; i -= 1) added += 1;
      if (added > 0) node.scrollTop += added * ROW_HEIGHT;
    }
    shown.current = { count, newest };
  });
  useEffect(() => {
    const node = viewport.current;
    if (!node) return undefined;
    let pending = false;
    const measure = () => {
      pending = false;
      setScroll({ top: node.scrollTop, height: node.clientHeight });
    };
    const onScroll = () => {
      if (!pending) {
        pending = true;
        requestAnimationFrame(measure);
      }
    };
    measure();
    node.addEventListener('scroll', onScroll, { passive: true });
    addEventListener('resize', onScroll);
    return () => {
      node.removeEventListener('scroll', onScroll);
      removeEventListener('resize', onScroll);
    };
  }, []);

  const first = Math.max(0, Math.floor(scroll.top / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(count, Math.ceil((scroll.top + scroll.height) / ROW_HEIGHT) + OVERSCAN);
  const rows = [];
  for (let position = first; position < last; position += 1) {
    const entry = visible[count - 1 - position];
    rows.push(html`<${Row} key=${entry.index} entry=${entry} top=${position * ROW_HEIGHT} selected=${entry === selected} onSelect=${onSelect} />`);
  }
  // As tall as its rows up to a cap, so a short list leaves no empty box; past the cap the style string
  // stays the same, so a growing list does not restyle the page every frame.
  const height = `height:${Math.min(Math.max(count, 3), 18) * ROW_HEIGHT + 2}px`;
  return html`<div class="viewport" ref=${viewport} style=${height} tabindex="0" aria-label="recorded requests, newest first">
    <ol class="rows" id="requests" style=${`height:${count * ROW_HEIGHT}px`}>${rows}</ol>
  </div>`;
}

export function RequestsPanel({ tail, recording, selected, onSelect }) {
  const { store, status } = tail;
  useStore(store);
  const kept = store.entries.length;
  const shown = store.visible.length;
  const clear = async () => {
    if (!confirm('Clear every recorded request of this imposter? This cannot be undone.')) return;
    await tail.clear();
    onSelect(undefined);
  };
  return html`<section class="panel requests-panel" aria-labelledby="requests-heading">
    <div class="title-row">
      <h2 id="requests-heading">Recorded requests <span class="muted" id="request-count">${store.numberOfRequests ?? ''}</span></h2>
      <div class="actions">
        <span class=${`live ${store.paused ? 'paused' : status}`} id="tail-status">${store.paused ? 'paused' : status}</span>
        <button type="button" id="pause" aria-pressed=${store.paused} onClick=${() => store.setPaused(!store.paused)}>
          ${store.paused ? `Resume${store.pending.length > 0 ? ` (${store.pending.length} new)` : ''}` : 'Pause'}</button>
        <button type="button" class="danger" id="clear-requests" onClick=${clear}>Clear</button>
      </div>
    </div>
    <p class="muted small" id="request-scope">
      ${shown === kept ? `${kept} kept` : `${shown} of ${kept} kept match the filters`}${store.truncated ? ' · older requests were evicted (10,000 kept)' : ''}
    </p>
    ${!recording && html`<p class="muted">recordRequests is off for this imposter: nothing is recorded.</p>`}
    <${Filters} store=${store} />
    <${VirtualList} store=${store} selected=${selected} onSelect=${onSelect} />
  </section>`;
}
