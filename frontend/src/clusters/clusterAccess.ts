// The grant form's rules, as the server checks them, so that a mistake is
// shown before anything is sent.

/** The accesses a grant gives, with what each lets a principal do. */
export const accessChoices = [
  { value: "VIEW", label: "View", hint: "Read most things (not secrets); change nothing." },
  { value: "EDIT", label: "Edit", hint: "Also create, change and delete workloads, services, config maps and secrets; no RBAC." },
  { value: "ADMIN", label: "Cluster admin", hint: "Everything, on the whole cluster." },
] as const;

export type AccessChoice = (typeof accessChoices)[number]["value"];

const principalPattern = /^arn:aws(-cn|-us-gov)?:iam::\d{12}:(role|user)\/([!-~]+\/)?[\w+=,.@-]{1,64}$/;
const namespacePattern = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
export const maxNamespaces = 25;

/** The namespaces typed, split on commas and spaces. */
export function splitNamespaces(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** What is wrong with a grant, by field; empty when nothing is. */
export function grantErrors(principalArn: string, access: AccessChoice, namespaces: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  const arn = principalArn.trim();
  if (!arn) out.principalArn = "Give the IAM role or user ARN, such as arn:aws:iam::123456789012:role/data-scientists.";
  else if (arn.includes(":assumed-role/")) out.principalArn = "That is a role session; give the role's ARN, arn:aws:iam::ACCOUNT:role/NAME.";
  else if (arn.length > 640 || !principalPattern.test(arn)) out.principalArn = "Not an IAM role or user ARN: use arn:aws:iam::ACCOUNT:role/NAME or arn:aws:iam::ACCOUNT:user/NAME.";
  if (access === "ADMIN" && namespaces.length > 0) out.namespaces = "Cluster admin is for the whole cluster: leave namespaces empty, or choose Edit.";
  else if (namespaces.length > maxNamespaces) out.namespaces = `At most ${maxNamespaces} namespaces.`;
  else {
    const bad = namespaces.find((n) => n.length > 63 || !namespacePattern.test(n));
    if (bad !== undefined) out.namespaces = `"${bad}" is not a namespace name (lower-case letters, digits and hyphens, at most 63).`;
    else if (new Set(namespaces).size !== namespaces.length) out.namespaces = "A namespace is named twice.";
  }
  return out;
}
