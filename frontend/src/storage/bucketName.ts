// S3's rules for a bucket name, checked in the browser as the server checks
// them (engine/storage checkBucketName), so that a name S3 would refuse is
// said at its field before anything is sent.

const allowed = /^[a-z0-9][a-z0-9.-]*[a-z0-9]$/;
const reservedPrefixes = ["xn--", "sthree-"];
const reservedSuffixes = ["-s3alias", "--ol-s3", ".mrap", "--x-s3"];

/** What is wrong with name as an S3 bucket name, or null when S3 takes it. */
export function bucketNameProblem(name: string): string | null {
  if (name === "") return "Give the bucket's name.";
  if (name.startsWith("s3://")) return `Give the bucket's name without s3:// (${name.slice(5).split("/")[0]}).`;
  if (name.length < 3 || name.length > 63) return `"${name}" is ${name.length} characters long; S3 takes 3 to 63.`;
  if (!allowed.test(name)) {
    return `"${name}" may hold only lower-case letters, digits, dots and hyphens, and must start and end with a letter or a digit.`;
  }
  if (name.includes("..")) return `"${name}" has two dots in a row; S3 refuses that.`;
  if (isIPv4(name)) return `"${name}" is shaped like an IP address; S3 refuses that.`;
  if (reservedPrefixes.some((p) => name.startsWith(p)) || reservedSuffixes.some((s) => name.endsWith(s))) {
    return `"${name}" uses a prefix or suffix S3 keeps for itself (xn--, sthree-, -s3alias, --ol-s3, .mrap, --x-s3).`;
  }
  return null;
}

/** Whether s is an IPv4 address as Go's netip reads one: four parts 0-255, no leading zeros. */
function isIPv4(s: string): boolean {
  const parts = s.split(".");
  return parts.length === 4 && parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255);
}
