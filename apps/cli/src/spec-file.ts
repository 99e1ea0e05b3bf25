import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { usageError } from './errors';

/** Reads a file's text, `-` meaning standard input; an unreadable file is a usage error (exit 2). */
export function readText(path: string, stdin: () => string = () => readFileSync(0, 'utf8')): string {
  try {
    return path === '-' ? stdin() : readFileSync(path, 'utf8');
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw usageError(`cannot read ${path === '-' ? 'standard input' : path} (${why})`);
  }
}

/**
 * The documents of a YAML (or JSON, which is YAML) text: each must be a mapping. Several documents are
 * separated by `---`; empty ones are skipped.
 */
export function parseDocuments(text: string, name: string): Record<string, unknown>[] {
  const docs = parseAllDocuments(text);
  const out: Record<string, unknown>[] = [];
  for (const doc of Array.isArray(docs) ? docs : [docs]) {
    if (doc.errors.length > 0) throw usageError(`${name} is not valid YAML: ${doc.errors[0].message}`);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    if (typeof value !== 'object' || Array.isArray(value))
      throw usageError(`${name}: each document must be a mapping (key: value), got ${typeof value}`);
    out.push(value as Record<string, unknown>);
  }
  if (out.length === 0) throw usageError(`${name} holds no document`);
  return out;
}

/** Exactly one document from a file (`-f spec.yaml`, `-f -` for standard input). */
export function readDocument(path: string, stdin?: () => string): Record<string, unknown> {
  const docs = parseDocuments(readText(path, stdin), path);
  if (docs.length > 1) throw usageError(`${path} holds ${docs.length} documents; this command takes one`);
  return docs[0];
}
