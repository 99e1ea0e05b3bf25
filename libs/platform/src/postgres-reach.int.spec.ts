import { chmodSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres } from './embedded-postgres';
import { firstClosedDirectory } from './postgres-reach';
import { SetupError } from './setup-error';

const asRoot = process.getuid?.() === 0;
const describeAsRoot = asRoot ? describe : describe.skip;

describeAsRoot(
  'embedded PostgreSQL under a directory closed to its "postgres" user (real file system)',
  () => {
    const other = { uid: 4242, gid: 4242 }; // neither owner nor group of a root-made directory

    it('finds the first directory on the way that the user may not enter', () => {
      const home = mkdtempSync(join(tmpdir(), 'hcn-private-home-'));
      chmodSync(home, 0o700);
      expect(firstClosedDirectory(join(home, 'clone', 'data'), other)).toBe(home);
      chmodSync(home, 0o701);
      expect(firstClosedDirectory(join(home, 'clone', 'data'), other)).toBeUndefined();
    });

    it('refuses to start with one sentence saying what to do, before initdb fails with EACCES', async () => {
      const home = mkdtempSync(join(tmpdir(), 'hcn-private-home-'));
      chmodSync(home, 0o700);
      const dataDir = join(home, 'clone', 'data', 'postgres');
      const error = await startEmbeddedPostgres({ dataDir }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(SetupError);
      expect((error as Error).message).toBe(
        `Embedded PostgreSQL runs as the system user "postgres", which cannot enter ${home} to reach its data ` +
          `directory (${join(home, 'clone', 'data')}): clone HCN outside ${home} (e.g. under /opt or /srv), or allow ` +
          `entering it with "chmod o+x ${home}", or set DATABASE_URL to a PostgreSQL server of your own.`,
      );
      expect(existsSync(join(home, 'clone'))).toBe(false);
    });
  },
);
