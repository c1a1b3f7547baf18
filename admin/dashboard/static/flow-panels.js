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
    ${space.data && html`<div>
      <p>${space.data.stubs?.length ?? 0} stubs · ${space.data.numberOfRequests} requests ·
        ${' '}${(space.data.scenarios ?? []).map((s) => `${s.name}=${s.state}`).join(', ') || 'no scenarios'}</p>
      <${JsonView} summary="space detail" value=${space.data} />
    </div>`}
  </section>`;
}

/** Keys the stubs' `_svc.stateOps` name: the admin API reads flow state by key, it does not list keys. */
function stateOpKeys(stubs) {
  return unique(stubs.flatMap((stub) => (stub.responses ?? []).flatMap((response) =>
    (Array.isArray(response._svc?.stateOps) ? response._svc.stateOps : []).map((op) => op?.key))));
}

export function FlowStatePanel({ port, stubs }) {
  const [flowId, setFlowId] = useState(String(port));
  const [keys, setKeys] = useState(() => stateOpKeys(stubs).join(', '));
  const [rows, setRows] = useState(undefined);
  const [error, setError] = useState(undefined);
  const lookUp = async (event) => {
    event.preventDefault();
    try {
      const names = unique(keys.split(',').map((k) => k.trim()));
      const found = await Promise.all(names.map((key) =>
        api('GET', `/admin/imposters/${port}/flow-state/${encodeURIComponent(flowId)}/${encodeURIComponent(key)}`)
          .then((r) => ({ key, present: true, value: r.body.value }), (err) => {
            if (err.status === 404) return { key, present: false };
            throw err;
          })));
      setRows(found);
      setError(undefined);
    } catch (err) {
      setError(err);
    }
  };
  return html`<section class="panel">
    <h2>Flow state</h2>
    <form class="row" onSubmit=${lookUp}>
      <${FlowIdInput} id="flow-state-flow" value=${flowId} onChange=${setFlowId} />
      <label class="inline">keys <input id="flow-state-keys" value=${keys} placeholder="key, other" onInput=${(e) => setKeys(e.target.value)} /></label>
      <button type="submit">Look up</button>
    </form>
    <${ErrorText} error=${error} />
    ${rows && html`<table><thead><tr><th>Key</th><th>Value</th></tr></thead>
      <tbody>${rows.map((row) => html`<tr><td><code>${row.key}</code></td>
        <td>${row.present ? html`<code>${JSON.stringify(row.value)}</code>` : html`<span class="muted">absent</span>`}</td></tr>`)}</tbody>
    </table>`}
    <p class="muted">The admin API reads flow state by key; keys named by the stubs' stateOps are filled in.</p>
  </section>`;
}
