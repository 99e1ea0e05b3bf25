/** One instruction of a Dockerfile: its keyword (upper case), flags (`--from=x`) and the rest of the line. */
export interface Instruction {
  readonly keyword: string;
  readonly flags: Readonly<Record<string, string>>;
  readonly args: string;
  readonly line: number;
}

/** One build stage: its base image, its name (`AS name`) and its instructions after FROM. */
export interface Stage {
  readonly image: string;
  readonly name?: string;
  readonly instructions: readonly Instruction[];
}

/**
 * Parses a Dockerfile into stages: comments and blank lines dropped, `\` continuations joined (comment lines
 * inside a continuation skipped, as BuildKit does), `--flag=value` options split off each instruction.
 */
export function parseDockerfile(text: string): Stage[] {
  const stages: Array<{ image: string; name?: string; instructions: Instruction[] }> = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let logical = lines[i].trim();
    if (!logical || logical.startsWith('#')) continue;
    while (logical.endsWith('\\') && i + 1 < lines.length) {
      logical = logical.slice(0, -1).trimEnd();
      i++;
      while (lines[i].trim().startsWith('#') && i + 1 < lines.length) i++;
      logical += ` ${lines[i].trim()}`;
    }
    const [, keyword, rest] = /^(\S+)\s*(.*)$/.exec(logical)!;
    const flags: Record<string, string> = {};
    let args = rest;
    for (let m = /^--([a-z-]+)(?:=(\S+))?\s*/.exec(args); m; m = /^--([a-z-]+)(?:=(\S+))?\s*/.exec(args)) {
      flags[m[1]] = m[2] ?? 'true';
      args = args.slice(m[0].length);
    }
    const upper = keyword.toUpperCase();
    if (upper === 'FROM') {
      const [image, as, name] = args.split(/\s+/);
      stages.push({ image, ...(as?.toUpperCase() === 'AS' ? { name } : {}), instructions: [] });
      continue;
    }
    if (stages.length === 0) {
      if (upper === 'ARG') continue; // ARGs before the first FROM
      throw new Error(`line ${start + 1}: ${upper} before FROM`);
    }
    stages[stages.length - 1].instructions.push({ keyword: upper, flags, args, line: start + 1 });
  }
  return stages;
}

/** The instructions of a stage with one keyword. */
export function instructions(stage: Stage, keyword: string): Instruction[] {
  return stage.instructions.filter((i) => i.keyword === keyword);
}

/** The shell commands of a stage's RUN instructions, split at `&&`, `;` and `||`, trimmed. */
export function runCommands(stage: Stage): string[] {
  return instructions(stage, 'RUN').flatMap((i) =>
    i.args
      .split(/&&|;|\|\|/)
      .map((c) => c.trim())
      .filter(Boolean),
  );
}

/** The stages a stage builds on: its FROM chain by stage name, itself first. */
export function lineage(stages: readonly Stage[], stage: Stage): Stage[] {
  const parent = stages.find((s) => s.name === stage.image);
  return parent && parent !== stage ? [stage, ...lineage(stages, parent)] : [stage];
}

/** Parses an exec-form (`["a", "b"]`) argument list; undefined for shell form. */
export function execForm(args: string): string[] | undefined {
  const text = args.trim();
  if (!text.startsWith('[')) return undefined;
  return JSON.parse(text) as string[];
}
