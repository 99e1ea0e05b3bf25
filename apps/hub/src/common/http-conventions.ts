import type { Request, Response } from 'express';

/**
 * The ETag of a resource at a stream revision: a strong entity tag, the revision quoted (`"7"`; `"-1"`: no events
 * yet). It names the resource's recorded state; what a GET adds live (usage from heartbeats, service endpoints)
 * is not versioned by it.
 */
export function etagOf(revision: number): string {
  return `"${revision}"`;
}

/** Sets the ETag of a single-resource answer from its stream revision. */
export function setEtag(res: Response, revision: number): void {
  res.setHeader('ETag', etagOf(revision));
}

/**
 * The revisions an `If-Match` header accepts: undefined without the header or with `*` (any current state), else
 * the revisions of its strong entity tags (weak ones never match, RFC 9110 13.1.1; none left: nothing matches).
 */
export function ifMatchRevisions(header: string | undefined): number[] | undefined {
  if (header === undefined || header.trim() === '*') return undefined;
  const revisions: number[] = [];
  for (const tag of header.split(',')) {
    const strong = /^\s*"(-1|0|[1-9]\d{0,15})"\s*$/.exec(tag);
    if (strong) revisions.push(Number(strong[1]));
  }
  return revisions;
}

/** Answers 201 Created with the new resource's URL in `Location`. */
export function created(res: Response, location: string): void {
  res.status(201).setHeader('Location', location);
}

/**
 * API answers are never cached nor answered 304: an ETag names the resource's recorded state for `If-Match`, while a
 * GET also shows what it observes live (task progress, instance counts, heartbeat usage, a read model catching up),
 * so a conditional GET on the ETag would hand back a stale body. `Cache-Control: no-store` keeps browsers from
 * revalidating, and `If-None-Match` / `If-Modified-Since` are ignored.
 */
export function apiAnswersNotCached(): (req: Request, res: Response, next: () => void) => void {
  return (req, res, next) => {
    if (req.path.startsWith('/v1/')) {
      res.setHeader('Cache-Control', 'no-store');
      delete req.headers['if-none-match'];
      delete req.headers['if-modified-since'];
    }
    next();
  };
}
