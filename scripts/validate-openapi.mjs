// Validates an OpenAPI document (a file, default openapi.json) against the OpenAPI specification's JSON Schema
// with @seriousme/openapi-schema-validator (an ES module, so a script of its own: Jest runs specs as CommonJS).
// Exit 0 and "valid (3.1)" when valid; exit 1 and the errors as JSON otherwise.
import { Validator } from '@seriousme/openapi-schema-validator';
import { readFileSync } from 'node:fs';

const file = process.argv[2] ?? 'openapi.json';
const validator = new Validator();
const result = await validator.validate(JSON.parse(readFileSync(file, 'utf8')));
if (result.valid) {
  process.stdout.write(`${file}: valid (${validator.version})\n`);
} else {
  process.stderr.write(
    `${file}: invalid OpenAPI ${validator.version}\n${JSON.stringify(result.errors, null, 2)}\n`,
  );
  process.exitCode = 1;
}
