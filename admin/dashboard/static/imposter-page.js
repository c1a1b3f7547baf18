// One imposter: header and actions, warnings, the live request tail with the selected request's detail,
// stubs (editable), a test request, scenarios, spaces and flow state.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from './html.js';
import { api } from './api.js';
import { useRequestTail } from './request-tail.js';
import { RequestsPanel } from './request-list.js';
import { RequestDetail } from './request-detail.js';
import { StubsPanel } from './stubs-panel.js';
import { navigate } from './navigation.js';
import { ErrorText, useLoad, useTitle } from './widgets.js';
import { DebugForm } from './debug-form.js';
import { FlowStatePanel, ScenariosPanel, SpacesPanel } from './flow-panels.js';

function Warnings({ warnings }) {
  if (!warnings?.length) return null;
  return html`<section class="panel">
    <h2>Warnings <span class="warn">${warnings.length}</span></h2>
    <ul class="warnings">
      ${warnings.map((w) => html`<li><code>${w.warningType}</code> ${w.message}</li>`)}
    </ul>
  </section>`;
}

/** Downloads the imposter as replayable JSON (what POST /imposters takes back). */
async function exportImposter(port) {
  const answer = await api('GET', `/imposters/${port}?replayable=true`);
  const blob = new Blob([JSON.stringify(answer.body, null, 2)], { type: 'application/json' });
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = `imposter-${port}.json`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

/** Opens and scrolls to a stub when a `#stub-N` link is followed. */
function useStubLinks() {
  useEffect(() => {
    const open = (event) => {
      const link = event.target.closest?.('a[href^="#stub-"]');
      if (!link) return;
      event.preventDefault();
      const stub = document.getElementById(link.getAttribute('href').slice(1));
      if (!stub) return;
      stub.open = true;
      stub.scrollIntoView({ block: 'center' });
      stub.querySelector('summary')?.focus();
    };
    document.addEventListener('click', open);
    return () => document.removeEventListener('click', open);
  }, []);
}

export function ImposterPage({ port }) {
  const detail = useLoad(() => api('GET', `/_dashboard/api/imposters/${port}`).then((r) => r.body), [port]);
  const [gone, setGone] = useState(false);
  const [actionError, setActionError] = useState(undefined);
  const [selected, setSelected] = useState(undefined);
  const reload = useRef(detail.reload);
  reload.current = detail.reload;
  const tail = useRequestTail(port, (event) => {
    if (event.action === 'deleted' || event.action === 'allDeleted') setGone(true);
    else reload.current();
  });
  useTitle(`Imposter ${port}`);
  useStubLinks();
  const act = async (method, path, after) => {
    try {
      await api(method, path);
      setActionError(undefined);
      after();
    } catch (err) {
      setActionError(err);
    }
  };

  const imposter = detail.data;
  // The same section > div > h1 shape as the loaded page, so the heading focused on navigation survives the load.
  if (!imposter) return html`<section><div class="title-row"><h1 tabindex="-1">Imposter ${port}</h1></div><${ErrorText} error=${detail.error} /></section>`;
  const stubs = imposter.stubs ?? [];
  return html`<section>
    <div class="title-row">
      <h1 tabindex="-1">Imposter ${port} <span class="badge">${imposter.protocol}</span> ${imposter.name && html`<span class="muted">${imposter.name}</span>`}
        ${' '}<span class=${imposter.enabled ? 'badge on' : 'badge off'}>${imposter.enabled ? 'enabled' : 'disabled'}</span></h1>
      <div class="actions">
        <button type="button" id="export" onClick=${() => exportImposter(port).catch(setActionError)}>Export JSON</button>
        ${
          imposter.enabled
            ? html`<button type="button" onClick=${() => act('POST', `/imposters/${port}/disable`, detail.reload)}>Disable</button>`
            : html`<button type="button" onClick=${() => act('POST', `/imposters/${port}/enable`, detail.reload)}>Enable</button>`
        }
        <button type="button" class="danger" onClick=${() => confirm(`Delete imposter ${port}?`) && act('DELETE', `/imposters/${port}`, () => navigate('/imposters'))}>Delete</button>
      </div>
    </div>
    ${gone && html`<p class="error" role="alert">This imposter has been deleted.</p>`}
    <${ErrorText} error=${actionError ?? detail.error} />
    <${Warnings} warnings=${imposter._svc?.warnings} />
    <div class="columns">
      <div>
        <${RequestsPanel} tail=${tail} recording=${imposter.recordRequests} selected=${selected} onSelect=${setSelected} />
        <${RequestDetail} port=${port} entry=${selected} stubs=${stubs} onClose=${() => setSelected(undefined)} />
      </div>
      <div>
        <${StubsPanel} port=${port} stubs=${stubs} store=${tail.store} recording=${imposter.recordRequests} onChanged=${detail.reload} onError=${setActionError} />
        <${DebugForm} port=${port} stubs=${stubs} />
        <${ScenariosPanel} port=${port} stubs=${stubs} store=${tail.store} />
        <${SpacesPanel} port=${port} stubs=${stubs} />
        <${FlowStatePanel} port=${port} stubs=${stubs} store=${tail.store} />
      </div>
    </div>
  </section>`;
}
