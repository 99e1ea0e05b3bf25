import { SKLEARN_PREDICTOR, freePort } from '@hcn/platform';
import { describeWithSklearn, eventuallyExpect, testSklearnPython } from '@hcn/testing';
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The built-in sklearn model server on the real scikit-learn runtime, with a model trained by the spec. */
describeWithSklearn('built-in scikit-learn model server (real scikit-learn)', () => {
  let dir: string;
  let server: ChildProcess;
  let base: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hcn-sklearn-'));
    const model = join(dir, 'model.joblib');
    const maker = resolve(__dirname, '../../../test/support/make_sklearn_model.py');
    const made = spawnSync(testSklearnPython(), [maker, model], { encoding: 'utf8' });
    expect(made.status).toBe(0);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = spawn(
      testSklearnPython(),
      [SKLEARN_PREDICTOR, '--model', model, '--port', String(port), '--name', 'sum'],
      {
        stdio: 'ignore',
      },
    );
    await eventuallyExpect(async () => expect((await fetch(`${base}/healthz`)).status).toBe(200), 20_000);
  }, 60_000);
  afterAll(() => {
    server?.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  const predict = (body: unknown, path = '/v1/predict') =>
    fetch(`${base}${path}`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });

  it('predicts with the loaded model (and answers KServe-style on /v1/models/<name>:predict)', async () => {
    for (const path of ['/v1/predict', '/v1/models/sum:predict']) {
      const answer = await predict(
        {
          instances: [
            [0, 0],
            [1, 1],
            [0.1, 0.2],
            [0.9, 0.9],
          ],
        },
        path,
      );
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { predictions: number[] }).predictions).toEqual([0, 1, 0, 1]);
    }
    const info = await (await fetch(`${base}/v1/models`)).json();
    expect(info).toEqual({ name: 'sum', class: 'LogisticRegression', features: 2 });
  });

  it.each<[string, unknown, string]>([
    ['no instances', {}, 'MODEL.INPUT'],
    ['rows of the wrong width', { instances: [[1, 2, 3]] }, 'MODEL.INPUT'],
    ['values the model cannot take', { instances: [['a', 'b']] }, 'MODEL.PREDICT'],
  ])('refuses %s with 400', async (_, body, code) => {
    const answer = await predict(body);
    const refused = (await answer.json()) as { error: { code: string } };
    expect([answer.status, refused.error.code]).toEqual([400, code]);
  });

  it('stops on SIGTERM', async () => {
    const exited = new Promise<number | null>((done) => server.once('exit', (code) => done(code)));
    server.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
