// Scenarios, spaces and flow-state keys of one imposter, each for a flow id (default: the port).
import { useState } from 'preact/hooks';
import { html } from './html.js';
import { api } from './api.js';
import { ErrorText, JsonView, useLoad } from './widgets.js';

const unique = (values) => [...new Set(values.filter((v) => typeof v === 'string' && v !== ''))];

function FlowIdInput({ value, onChange, id }) {
  return html`<label class="inline">flow id <input id=${id} value=${value} onChange=${(e) => onChange(e.target.value)} /></label>`;
}

export function ScenariosPanel({ port, stubs }) {
  const [flowId, setFlowId] = useState(String(port));
  const [error, setError] = useState(undefined);
  const scenarios = useLoad(
    () => api('GET', `/imposters/${port}/scenarios?flowId=${encodeURIComponent(flowId)}`).then((r) => r.body.scenarios),
    [port, flowId, stubs],
  );
  if (!stubs.some((stub) => stub.scenarioName)) return null;
  const reset = async () => {
    try {
      await api('POST', `/imposters/${port}/scenarios/reset`, { flowId });
      setError(undefined);
      scenarios.reload();
    } catch (err) {
      setError(err);
    }
  };
  return html`<section class="panel">
    <div class="title-row"><h2>Scenarios</h2><${FlowIdInput} id="scenario-flow" value=${flowId} onChange=${setFlowId} /></div>
    <${ErrorText} error=${error ?? scenarios.error} />
    <table><thead><tr><th>Scenario</th><th>State</th></tr></thead>
      <tbody>${(scenarios.data ?? []).map((s) => html`<tr><td>${s.name}</td><td><code>${s.state}</code></td></tr>`)}</tbody>
    </table>
    <button onClick=${reset}>Reset scenarios</button> <button onClick=${scenarios.reload}>Refresh</button>
  </section>`;
}

export function SpacesPanel({ port, stubs }) {
  const spaces = unique(stubs.map((stub) => stub.space));
  const [selected, setSelected] = useState(undefined);
  const space = useLoad(
    () => (selected === undefined ? Promise.resolve(undefined) : api('GET', `/imposters/${port}/spaces/${encodeURIComponent(selected)}`).then((r) => r.body)),
    [port, selected],
  );
  if (spaces.length === 0) return null;
  return html`<section class="panel">
    <h2>Spaces <span class="muted">${spaces.length}</span></h2>
    <div class="chips">${spaces.map((name) => html`<button class=${name === selected ? 'chip active' : 'chip'} onClick=${() => setSelected(name)}>${name}</button>`)}</div>
    <${ErrorText} error=${space.error} />
    ${
      space.data
      && html`<div>
      <p>${space.data.stubs?.length ?? 0} stubs · ${space.data.numberOfRequests} requests ·
        ${' '}${(space.data.scenarios ?? []).map((s) => `${s.name}=${s.state}`).join(', ') || 'no scenarios'}</p>
      <${JsonView} summary="space detail" value=${space.data} />
    </div>`
    }
  </section>`;
}

export function FlowStatePanel({ port, stubs }) {
  const [flowId, setFlowId] = useState(String(port));
  const values = useLoad(
    () => api('GET', `/admin/imposters/${port}/flow-state/${encodeURIComponent(flowId)}`).then((r) => r.body.values),
    [port, flowId, stubs],
  );
  const rows = Object.entries(values.data ?? {});
  return html`<section class="panel">
    <div class="title-row"><h2>Flow state <span class="muted" id="flow-state-count">${rows.length}</span></h2>
      <${FlowIdInput} id="flow-state-flow" value=${flowId} onChange=${setFlowId} /></div>
    <${ErrorText} error=${values.error} />
    ${
      values.data
      && (rows.length === 0
        ? html`<p class="muted">No keys in flow <code>${flowId}</code>.</p>`
        : html`<table><thead><tr><th>Key</th><th>Value</th></tr></thead>
        <tbody>${rows.map(([key, value]) => html`<tr><td><code>${key}</code></td><td><code>${JSON.stringify(value)}</code></td></tr>`)}</tbody>
      </table>`)
    }
    <button onClick=${values.reload}>Refresh</button>
  </section>`;
}
