/** A horizontal usage bar: `used` of `total`, with the label beside it. */
export function Bar({
  used,
  total,
  label,
  testId,
}: {
  used: number;
  total: number;
  label: string;
  testId?: string;
}) {
  const fraction = total > 0 ? Math.min(1, Math.max(0, used / total)) : 0;
  const level = fraction > 0.9 ? 'high' : fraction > 0.7 ? 'mid' : 'low';
  return (
    <div className="bar" title={label} data-testid={testId} data-used={used} data-total={total}>
      <div className="bar-track">
        <div className={`bar-fill ${level}`} style={{ width: `${fraction * 100}%` }} />
      </div>
      <span className="bar-label">{label}</span>
    </div>
  );
}
