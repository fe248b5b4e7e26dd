import { useQuery } from "urql";
import { InstanceQuotaQuery } from "./documents";

/**
 * The account's quota on an instance type and how much of it is used, the
 * numbers the server checks when a group is added or grows. adding is how
 * many more instances the request asks for.
 */
export function QuotaHint({ region, instanceType, adding }: { region: string; instanceType: string; adding: number }) {
  const [{ data, error }] = useQuery({ query: InstanceQuotaQuery, variables: { region, instanceType }, pause: !instanceType || !region });
  if (!instanceType || error || !data) return null;
  const q = data.instanceQuota;
  if (q.limit === null || q.available === null) {
    return <p className="hint">Service Quotas reports no HyperPod quota for {instanceType} in {region}.</p>;
  }
  const short = adding > q.available;
  return (
    <p className={short ? "hint hint-warn" : "hint"}>
      Quota for {instanceType} in {region}: {q.inUse} of {q.limit} in use, {q.available} more can be added
      {short ? `; this asks for ${adding}, so the server will refuse it. Lower the count, or raise the quota (${q.quotaName}).` : "."}
    </p>
  );
}
