// The create-cluster form's model: what the user decides, the checks the
// server makes on it (mirrored here so that mistakes show before sending),
// the request it becomes, and where the server's errors belong on the form.
//
// Errors are keyed by the server's field paths (input.name, input.zones,
// input.instanceGroups[0].instanceType), so that client and server errors
// land in the same place.
import type { CapacityType, CreateClusterInput, NetworkInterfaceMode } from "../gql/graphql";
import { addError as add, generalKey, parseWhole, sortServerErrors, type FieldErrors, type ServerError } from "../ui/fieldErrors";

export interface GroupDraft {
  /** A stable key for React; not sent. */
  key: string;
  name: string;
  zone: string;
  instanceType: string;
  /** As typed; checked to be a whole number 0-1000. */
  count: string;
  capacityType: CapacityType;
  networkInterfaceMode: NetworkInterfaceMode;
}

export interface ClusterDraft {
  name: string;
  region: string;
  zones: string[];
  groups: GroupDraft[];
  /** The system node group's node count as typed: 0-10, 0 for none. */
  systemNodeCount: string;
  /** The system node group's EC2 instance type, without HyperPod's ml. prefix. */
  systemInstanceType: string;
}

/** The system node group createCluster makes unless told otherwise. */
export const systemNodeDefaults = { count: "2", instanceType: "m5.large" } as const;

/** The most system nodes a cluster may ask for (engine/cluster.MaxSystemNodes). */
export const maxSystemNodes = 10;

// The server's shape of an EC2 instance type (engine/cluster/system_nodes.go).
const ec2InstanceTypePattern = /^[a-z][a-z0-9-]{0,15}\.[a-z0-9]{1,16}$/;

// The server's patterns (engine/cluster/validate.go).
const clusterNamePattern = /^[a-zA-Z]([a-zA-Z0-9-]{0,38}[a-zA-Z0-9])?$/;
const groupNamePattern = /^[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/;

export const fieldPaths = {
  name: "input.name",
  region: "input.region",
  zones: "input.zones",
  systemNodeCount: "input.systemNodes.count",
  systemInstanceType: "input.systemNodes.instanceType",
  group: (i: number, field: "name" | "zone" | "instanceType" | "count" | "capacityType" | "networkInterfaceMode") => `input.instanceGroups[${i}].${field}`,
};

/** The checks the server makes before it asks AWS anything. */
export function validateDraft(draft: ClusterDraft): FieldErrors {
  const errors: FieldErrors = {};
  const name = draft.name.trim();
  if (name === "") {
    add(errors, fieldPaths.name, "Give the cluster a name.");
  } else if (!clusterNamePattern.test(name) || name.includes("--")) {
    add(
      errors,
      fieldPaths.name,
      "Use 1-40 letters, digits and single hyphens, starting with a letter and not ending with a hyphen.",
    );
  }
  if (!draft.region) add(errors, fieldPaths.region, "Choose a region.");
  if (draft.zones.length < 2) {
    add(errors, fieldPaths.zones, "EKS needs at least two availability zones: choose another.");
  }
  const names = new Set<string>();
  draft.groups.forEach((g, i) => {
    const groupName = g.name.trim();
    if (groupName === "") {
      add(errors, fieldPaths.group(i, "name"), "Give the group a name.");
    } else if (!groupNamePattern.test(groupName)) {
      add(
        errors,
        fieldPaths.group(i, "name"),
        "Use 1-63 letters, digits and hyphens, starting and ending with a letter or digit.",
      );
    } else if (names.has(groupName)) {
      add(errors, fieldPaths.group(i, "name"), `The name ${groupName} is used twice: give each group its own name.`);
    }
    names.add(groupName);
    if (!g.zone) add(errors, fieldPaths.group(i, "zone"), "Choose the group's availability zone.");
    else if (!draft.zones.includes(g.zone)) {
      add(errors, fieldPaths.group(i, "zone"), `Zone ${g.zone} is not one of the cluster's zones: choose one of those.`);
    }
    if (!g.instanceType) add(errors, fieldPaths.group(i, "instanceType"), "Choose an instance type.");
    else if (!g.instanceType.startsWith("ml.")) {
      add(errors, fieldPaths.group(i, "instanceType"), "Use HyperPod's form of the type, for example ml.p5.48xlarge.");
    }
    const count = parseCount(g.count);
    if (count === null) add(errors, fieldPaths.group(i, "count"), "Enter a whole number from 0 to 1000.");
    else if (count < 0 || count > 1000) add(errors, fieldPaths.group(i, "count"), "Use 0 to 1000 instances.");
  });
  const systemCount = parseCount(draft.systemNodeCount);
  if (systemCount === null || systemCount < 0 || systemCount > maxSystemNodes) {
    add(errors, fieldPaths.systemNodeCount, `Enter a whole number from 0 (no system node group) to ${maxSystemNodes}.`);
  }
  const systemType = draft.systemInstanceType.trim();
  if (systemCount !== 0 && (systemType.startsWith("ml.") || !ec2InstanceTypePattern.test(systemType))) {
    add(errors, fieldPaths.systemInstanceType, `Use an EC2 instance type such as ${systemNodeDefaults.instanceType}, without HyperPod's ml. prefix.`);
  }
  return errors;
}

/** A count as typed, or null when it is not a whole number. */
export const parseCount = parseWhole;

/** The createCluster input of a valid draft. */
export function toInput(draft: ClusterDraft): CreateClusterInput {
  const input: CreateClusterInput = {
    name: draft.name.trim(),
    region: draft.region,
    zones: [...draft.zones],
    systemNodes: {
      count: parseCount(draft.systemNodeCount) ?? 0,
      ...(draft.systemInstanceType.trim() !== "" && { instanceType: draft.systemInstanceType.trim() }),
    },
  };
  if (draft.groups.length > 0) {
    input.instanceGroups = draft.groups.map((g) => ({
      name: g.name.trim(),
      zone: g.zone,
      instanceType: g.instanceType,
      count: parseCount(g.count) ?? 0,
      capacityType: g.capacityType,
      networkInterfaceMode: g.networkInterfaceMode,
    }));
  }
  return input;
}

/** The form fields the server's field paths may name. */
const formFields = new Set(["name", "region", "zones", "zone", "instanceType", "count", "capacityType", "networkInterfaceMode"]);

/**
 * Where a server error belongs on the form: the key of the field it
 * concerns, or generalKey for errors that concern no field the form shows
 * (they go at the top of the form, with the field named).
 *
 * A zone listed at index i (input.zones[1]) belongs to the zone choice as a
 * whole; group fields keep their index, which is the group's place in the
 * form since groups are sent in form order.
 */
export function formFieldOf(field: string, groupCount: number): string {
  const zone = /^input\.zones(\[\d+\])?$/.exec(field);
  if (zone) return fieldPaths.zones;
  const group = /^input\.instanceGroups\[(\d+)\]\.(\w+)$/.exec(field);
  if (group) {
    const i = Number(group[1]);
    const name = group[2]!;
    if (i < groupCount && formFields.has(name)) return `input.instanceGroups[${i}].${name}`;
    return generalKey;
  }
  if (field === fieldPaths.name || field === fieldPaths.region || field === fieldPaths.systemNodeCount || field === fieldPaths.systemInstanceType) {
    return field;
  }
  return generalKey;
}

/** Sorts the server's errors onto the form's fields. */
export function serverFieldErrors(errors: readonly ServerError[], groupCount: number): FieldErrors {
  return sortServerErrors(errors, (field) => formFieldOf(field, groupCount));
}

/** The default region: the one the server's default zones are in. */
export function defaultRegion(regions: readonly string[], defaultZones: readonly { name: string }[]): string {
  const zone = defaultZones[0]?.name;
  if (zone) {
    const match = regions.filter((r) => zone.startsWith(r)).sort((a, b) => b.length - a.length)[0];
    if (match) return match;
  }
  return regions[0] ?? "";
}
