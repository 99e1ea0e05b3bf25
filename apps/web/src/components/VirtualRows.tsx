import { ReactNode, useEffect, useRef, useState } from 'react';

/** A column of a windowed table. */
export interface Column<T> {
  title: string;
  width: string;
  render: (row: T) => ReactNode;
}

/**
 * A table that renders only the rows in view (plus a few either side): fixed row height, a spacer as tall as all
 * rows, the visible slice positioned inside it. Enough for thousands of rows without a library.
 */
export function VirtualRows<T>({
  rows,
  columns,
  rowKey,
  rowHeight = 34,
  height = 560,
  overscan = 8,
  testId,
  onVisible,
  onRange,
}: {
  rows: readonly T[];
  columns: ReadonlyArray<Column<T>>;
  rowKey: (row: T) => string;
  rowHeight?: number;
  height?: number;
  overscan?: number;
  testId?: string;
  /** Called with the keys of the rows in view (and overscan) whenever they change. */
  onVisible?: (keys: string[]) => void;
  /** Called with the index of the first row rendered whenever it changes (server-paged lists). */
  onRange?: (first: number) => void;
}) {
  const [scrollTop, setScrollTop] = useState(0);
  const box = useRef<HTMLDivElement>(null);
  const viewport = Math.min(height, Math.max(rowHeight, rows.length * rowHeight));
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(rows.length, Math.ceil((scrollTop + viewport) / rowHeight) + overscan);
  const template = columns.map((c) => c.width).join(' ');
  useEffect(() => onVisible?.(rows.slice(first, last).map(rowKey)), [rows, first, last, rowKey, onVisible]);
  useEffect(() => onRange?.(first), [first, onRange]);
  useEffect(() => {
    // Keep the scroll position valid when the list shrinks.
    const el = box.current;
    if (el && el.scrollTop > rows.length * rowHeight) setScrollTop(el.scrollTop);
  }, [rows.length, rowHeight]);
  return (
    <div className="vtable" data-testid={testId} data-rows={rows.length}>
      <div className="vrow vhead" style={{ gridTemplateColumns: template }}>
        {columns.map((c) => (
          <div key={c.title}>{c.title}</div>
        ))}
      </div>
      <div
        ref={box}
        className="vbody"
        style={{ height: viewport }}
        onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
      >
        <div style={{ height: rows.length * rowHeight, position: 'relative' }}>
          {rows.slice(first, last).map((row, i) => (
            <div
              key={rowKey(row)}
              className="vrow"
              data-key={rowKey(row)}
              style={{ gridTemplateColumns: template, top: (first + i) * rowHeight, height: rowHeight }}
            >
              {columns.map((c) => (
                <div key={c.title}>{c.render(row)}</div>
              ))}
            </div>
          ))}
        </div>
      </div>
    </div>
  );
}
