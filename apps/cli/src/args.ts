import { HcnError } from '@hcn/contracts';

/** Parsed command line: positional words and `--name value` / `--flag` options. */
export interface Args {
  readonly positional: readonly string[];
  readonly options: Readonly<Record<string, string | true>>;
}

/** Options that take no value. */
const FLAGS = new Set(['json', 'help', 'quiet']);

/** Splits argv into positional words and options (`--name value`, `--name=value`, `--flag`). */
export function parseArgs(argv: readonly string[]): Args {
  const positional: string[] = [];
  const options: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i];
    if (!word.startsWith('--')) {
      positional.push(word);
      continue;
    }
    const [name, inline] = word.slice(2).split(/=(.*)/s, 2);
    if (inline !== undefined) options[name] = inline;
    else if (FLAGS.has(name)) options[name] = true;
    else if (i + 1 < argv.length) options[name] = argv[++i];
    else throw usage(`--${name} needs a value`);
  }
  return { positional, options };
}

/** A string option, or undefined. */
export function option(args: Args, name: string): string | undefined {
  const value = args.options[name];
  return typeof value === 'string' ? value : undefined;
}

/** A command-line mistake: printed with the usage, exit status 2. */
export function usage(message: string): HcnError {
  return new HcnError('CLI.USAGE', message);
}
