// The accelerators of the instance types a cluster's groups run, read
// from the offerings of the groups' zones: how many GPUs a node of each
// group has, which a job's GPUs per node may not exceed.
import { useEffect, useState } from "react";
import { useClient } from "urql";
import { GroupAcceleratorsQuery } from "./documents";

export interface Accelerators {
  count: number;
  name: string | null;
}

/** The accelerators of each instance type offered in zones of region; empty until read. */
export function useGroupAccelerators(region: string | undefined, zones: readonly string[]): ReadonlyMap<string, Accelerators> {
  const client = useClient();
  const [byType, setByType] = useState<ReadonlyMap<string, Accelerators>>(new Map());
  const zonesKey = [...new Set(zones)].sort().join(",");
  useEffect(() => {
    if (!region || zonesKey === "") return;
    let live = true;
    void Promise.all(zonesKey.split(",").map((zone) => client.query(GroupAcceleratorsQuery, { region, zone }).toPromise())).then((answers) => {
      if (!live) return;
      const out = new Map<string, Accelerators>();
      for (const a of answers) {
        for (const o of a.data?.instanceTypeOfferings ?? []) out.set(o.instanceType, { count: o.acceleratorCount, name: o.acceleratorName });
      }
      setByType(out);
    });
    return () => {
      live = false;
    };
  }, [client, region, zonesKey]);
  return byType;
}
