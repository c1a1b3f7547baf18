/**
 * Conformance: the fault cases of mountebank's functional API suite (httpFaultTest), over http and
 * https imposters, svc against mountebank 2.9.1 side by side: what the client's HTTP stack reports
 * when the connection is dropped or fed garbage.
 *
 * Deliberate departure (docs/faults.md), asserted as such: an unrecognised fault string answers 500
 * `Unknown fault: <value>` in plain text; mountebank 2.9.1 logs it and answers an empty 200.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { svcIsMountebank } from '../support/mountebank/pair.js';
import { call, createImposters, onBoth, dynamicPairForSuite, type Protocol } from '../support/mountebank/side-by-side.js';

const test = suite('conformance: dynamic faults');

const ready = dynamicPairForSuite(test);

const faulty = (protocol: Protocol, fault: string) => (ports: number[]) => [{ protocol, port: ports[0], stubs: [{ responses: [{ fault }] }] }];

/** The client's error code, or the answer when there was one. */
async function outcome(protocol: Protocol, port: number): Promise<string> {
  try {
    const res = await call({ protocol, port });
    return `answered ${res.status}`;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? String(err);
  }
}

for (const protocol of ['http', 'https'] as const) {
  const cases: Array<[string, string]> = [
    ['CONNECTION_RESET_BY_PEER', 'ECONNRESET'],
    ['RANDOM_DATA_THEN_CLOSE', 'HPE_INVALID_CONSTANT'],
  ];
  for (const [fault, expected] of cases) {
    test(`${protocol}: fault ${fault} fails the client with ${expected}`, async () => {
      const { mb, svc } = await onBoth(ready(), 1, faulty(protocol, fault), async (_side, [port]) => outcome(protocol, port!));
      assert.is(mb, expected);
      assert.is(svc, mb);
    });
  }

  test(`${protocol}: an unknown fault: mountebank answers an empty 200, svc 500 "Unknown fault" (docs/faults.md)`, async () => {
    const [mbSide, svcSide] = ready().sides;
    const [mbPort] = await createImposters(mbSide, 1, faulty(protocol, 'NON_EXISTENT_FAULT'));
    const mb = await call({ protocol, port: mbPort! });
    assert.is(mb.status, 200);
    assert.is(mb.body, '');
    if (svcIsMountebank) return;
    const [svcPort] = await createImposters(svcSide, 1, faulty(protocol, 'NON_EXISTENT_FAULT'));
    const svc = await call({ protocol, port: svcPort! });
    assert.is(svc.status, 500);
    assert.is(svc.body, 'Unknown fault: NON_EXISTENT_FAULT');
  });
}

test.run();
