/** A horizontal usage bar: `used` of `total`, with the label beside it. */
export function Bar({ used, total, label }: { used: number; total: number; label: string }) {
  const fraction = total > 0 ? Math.min(1, Math.max(0, used / total)) : 0;
  const level = fraction > 0.9 ? 'high' : fraction > 0.7 ? 'mid' : 'low';
  return (
    <div className="bar" title={label}>
      <div className="bar-track">
        <div className={`bar-fill ${level}`} style={{ width: `${fraction * 100}%` }} />
      </div>
      <span className="bar-label">{label}</span>
    </div>
  );
}
