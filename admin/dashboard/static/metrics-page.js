// The admin `/metrics` families as a page: requests per imposter over time, sampled while the page is
// open, drawn as plain SVG polylines (no chart library).
import { useEffect, useState } from 'preact/hooks';
import { html } from './html.js';
import { api } from './api.js';
import { ErrorText, useTitle } from './widgets.js';

const SAMPLE_MS = 2000;
const KEEP = 90;

/** `{name, labels, value}` per sample line of the text exposition format. */
export function parseMetrics(text) {
  const samples = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([A-Za-z_:][\w:]*)(?:\{([^}]*)\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const labels = {};
    for (const pair of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]] = pair[2];
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

/** A polyline of `values` scaled into a width x height box (the largest value at the top). */
function Sparkline({ values, label }) {
  const width = 240;
  const height = 48;
  const max = Math.max(1, ...values);
  const step = values.length > 1 ? width / (values.length - 1) : width;
  const points = values.map((v, i) => `${(i * step).toFixed(1)},${(height - 2 - (v / max) * (height - 4)).toFixed(1)}`);
  return html`<svg class="sparkline" viewBox=${`0 0 ${width} ${height}`} preserveAspectRatio="none" role="img" aria-label=${label}>
    ${points.length > 1 && html`<path d=${`M${points.join('L')}`} />`}
  </svg>`;
}

export function MetricsPage() {
  useTitle('Metrics');
  const [history, setHistory] = useState({ times: [], totals: new Map(), imposters: undefined, text: '' });
  const [error, setError] = useState(undefined);
  useEffect(() => {
    let live = true;
    const sample = async () => {
      try {
        const answer = await api('GET', '/metrics');
        const text = typeof answer.body === 'string' ? answer.body : String(answer.body);
        const samples = parseMetrics(text);
        if (!live) return;
        setError(undefined);
        setHistory((old) => {
          const totals = new Map(old.totals);
          const seen = new Set();
          for (const s of samples) {
            if (s.name !== 'svc_imposter_requests_total' || s.labels.port === undefined) continue;
            seen.add(s.labels.port);
            const series = [...(totals.get(s.labels.port) ?? []), s.value].slice(-KEEP);
            totals.set(s.labels.port, series);
          }
          for (const port of totals.keys()) if (!seen.has(port)) totals.delete(port);
          const imposters = samples.find((s) => s.name === 'svc_imposters_total')?.value;
          return { times: [...old.times, Date.now()].slice(-KEEP), totals, imposters, text };
        });
      } catch (err) {
        if (live) setError(err);
      }
    };
    sample();
    const timer = setInterval(sample, SAMPLE_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, []);

  const rows = [...history.totals.entries()].sort((a, b) => Number(a[0]) - Number(b[0]));
  return html`<section>
    <h1 tabindex="-1">Metrics <span class="muted">${history.imposters !== undefined ? `${history.imposters} imposters` : ''}</span></h1>
    <${ErrorText} error=${error} />
    <section class="panel">
      <h2>Requests per imposter <span class="muted">per second, sampled every ${SAMPLE_MS / 1000} s while this page is open</span></h2>
      <table class="metrics">
        <thead><tr><th>Port</th><th class="num">Total</th><th class="num">Now /s</th><th>Recent</th></tr></thead>
        <tbody>
          ${rows.map(([port, series]) => {
            const rates = series.slice(1).map((v, i) => Math.max(0, v - series[i]) / (SAMPLE_MS / 1000));
            const now = rates.length > 0 ? rates[rates.length - 1] : 0;
            return html`<tr data-port=${port}>
              <td><a href=${`/imposters/${port}`}>${port}</a></td>
              <td class="num">${series[series.length - 1]}</td>
              <td class="num">${now.toFixed(1)}</td>
              <td class="chart"><${Sparkline} values=${rates} label=${`requests per second on ${port}`} /></td>
            </tr>`;
          })}
        </tbody>
      </table>
      ${rows.length === 0 && html`<p class="muted">No imposter has counted a request yet.</p>`}
    </section>
    <details class="json"><summary>raw /metrics</summary><pre>${history.text}</pre></details>
  </section>`;
}
