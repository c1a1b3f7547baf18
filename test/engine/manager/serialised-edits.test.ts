/**
 * Concurrent admin edits of one imposter are serialised by the manager (issue 12 scope 3): every
 * outcome is one a serial order of the same calls could give, so no edit is lost and no call sees an
 * imposter half-replaced.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { inProcessForSuite } from '../../support/in-process.js';
import { freePort } from '../../support/servers.js';
import { inFlight } from '../../support/in-flight.js';

const test = suite('admin: concurrent stub edits');
const svc = inProcessForSuite(test, { keepImposters: true });

const stub = (id: string) => ({ id, responses: [{ is: { body: id } }] });
const ids = (detail: any): string[] => detail.stubs.map((s: any) => s.id);

test('40 POST stubs racing PUT stubs and PUT /imposters: every answer a serial state, no stub lost', async () => {
  const port = await freePort();
  const imposter = (name: string, stubs: unknown[]) => ({ port, protocol: 'http', name, stubs });
  assert.is((await svc.admin('POST', '/imposters', imposter('start', [stub('r0')]))).status, 201);

  // Four writers add 10 stubs each, one after another, while a fifth call chain keeps resetting the list.
  const answers: Array<{ id: string; res: any }> = [];
  const writer = async (w: number) => {
    for (let i = 0; i < 10; i++) {
      const id = `p${w}-${i}`;
      answers.push({ id, res: await svc.admin('POST', `/imposters/${port}/stubs`, { index: i % 2, stub: stub(id) }) });
    }
  };
  let writing = true;
  const resetter = async () => {
    for (let n = 1; writing && n <= 200; n++) {
      const reset = [stub(`r${n}`)];
      // A changed header replaces the imposter (its port unbound and bound again) rather than patching its stubs.
      const res =
        n % 2 === 0
          ? await svc.admin('PUT', '/imposters', { imposters: [imposter(`n${n}`, reset)] })
          : await svc.admin('PUT', `/imposters/${port}/stubs`, { stubs: reset });
      assert.is(res.status, 200, JSON.stringify(res.json));
    }
  };
  const resetting = inFlight(resetter());
  await Promise.all([0, 1, 2, 3].map(writer));
  writing = false;
  await resetting;
  assert.is(answers.length, 40);

  const final = await svc.admin('GET', `/imposters/${port}`);
  const finalIds = ids(final.json);
  const resetIn = (list: string[]) => list.filter((id) => id.startsWith('r'));
  assert.is(resetIn(finalIds).length, 1, `one reset survives: ${finalIds}`);
  const survivor = resetIn(finalIds)[0];
  for (const { id, res } of answers) {
    assert.is(res.status, 200, `POST ${id}: ${JSON.stringify(res.json)}`);
    const seen = ids(res.json);
    assert.is(resetIn(seen).length, 1, `POST ${id} answered a half-applied list: ${seen}`);
    assert.is(new Set(seen).size, seen.length, `POST ${id}: duplicate ids ${seen}`);
    // Added after the surviving reset, so no later call removed it: it must still be there.
    if (seen.includes(id) && seen.includes(survivor)) assert.ok(finalIds.includes(id), `POST ${id} was lost: ${finalIds}`);
  }
  const added = answers.filter(({ id, res }) => ids(res.json).includes(id) && ids(res.json).includes(survivor)).length;
  assert.is(finalIds.length, added + 1, `stub count: ${finalIds}`);
});

test.run();
