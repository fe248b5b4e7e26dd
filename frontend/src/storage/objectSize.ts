// Object sizes as people read them: binary units, as S3's console and
// df -h count them.

const units = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];

/** A size in bytes in the largest unit it reaches: 512 B, 1.5 KiB, 1.2 GiB, 340 GiB. */
export function formatSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 1024) return `${Math.max(0, Math.round(bytes || 0))} B`;
  let value = bytes;
  let unit = -1;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  // 1023.7 KiB would show as 1024 KiB: that is 1 MiB.
  if (Math.round(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  // One decimal below 100 (rounding up to 100 takes the whole number);
  // a trailing .0 says nothing.
  const shown = value < 99.95 ? value.toFixed(1).replace(/\.0$/, "") : String(Math.round(value));
  return `${shown} ${units[unit]}`;
}

/** A size in bytes, exactly: 1,288,490,189 bytes. */
export function exactSize(bytes: number): string {
  return `${bytes.toLocaleString("en-US")} ${bytes === 1 ? "byte" : "bytes"}`;
}
