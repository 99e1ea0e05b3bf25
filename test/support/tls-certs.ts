import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Paths of a PEM certificate and its private key. */
export interface CertFiles {
  readonly cert: string;
  readonly key: string;
}

const openssl = (args: string[], cwd: string): void => {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
};

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/**
 * A throwaway certificate authority in `dir` (the `openssl` CLI): its own certificate and key, and `issue` for
 * certificates it signs, good for a day, for server and client use, naming 127.0.0.1 and localhost.
 */
export function testCertificateAuthority(
  dir: string,
  name: string,
): CertFiles & { issue(cn: string): CertFiles } {
  const ca = { cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) };
  openssl(
    [
      'req',
      '-x509',
      ...EC_KEY,
      '-keyout',
      ca.key,
      '-out',
      ca.cert,
      '-days',
      '1',
      '-subj',
      `/CN=${name}`,
    ].concat([
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ]),
    dir,
  );
  const extensions = join(dir, `${name}.ext`);
  writeFileSync(
    extensions,
    [
      'basicConstraints=CA:FALSE',
      'keyUsage=critical,digitalSignature',
      'extendedKeyUsage=serverAuth,clientAuth',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ].join('\n'),
  );
  const issue = (cn: string): CertFiles => {
    const leaf = { cert: join(dir, `${cn}.crt`), key: join(dir, `${cn}.key`) };
    const csr = join(dir, `${cn}.csr`);
    openssl(['req', ...EC_KEY, '-keyout', leaf.key, '-out', csr, '-subj', `/CN=${cn}`], dir);
    openssl(
      [
        'x509',
        '-req',
        '-in',
        csr,
        '-CA',
        ca.cert,
        '-CAkey',
        ca.key,
        '-CAcreateserial',
        '-out',
        leaf.cert,
      ].concat(['-days', '1', '-extfile', extensions]),
      dir,
    );
    return leaf;
  };
  return { ...ca, issue };
}
