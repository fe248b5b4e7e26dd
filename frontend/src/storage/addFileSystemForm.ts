// The "Add FSx for Lustre" form: its draft, the choices each deployment
// type takes, the checks the server makes before it asks FSx anything
// (engine/storage checkFSx, mirrored so that a mistake shows at its field
// before sending), the addStorage variables, and where the server's
// errors go.
import type { AddStorageMutationVariables, FsxDeploymentType } from "../gql/graphql";
import { addError, generalKey, parseWhole, sortServerErrors, type FieldErrors, type ServerError } from "../ui/fieldErrors";

export interface FileSystemDraft {
  name: string;
  deploymentType: FsxDeploymentType;
  /** The storage capacity in GiB, as typed. */
  capacityGiB: string;
  /** MB/s per TiB; null for a type that takes none (SCRATCH_2). */
  throughputPerTiB: number | null;
  /** The zone of the compute subnet; "" takes the first compute subnet's. */
  zone: string;
  /** Link the shared bucket at /s3 in the file system (PERSISTENT_2 only). */
  linkSharedBucket: boolean;
}

/** The field paths of the form: the server's, so its errors land at the same fields. */
export const fileSystemPaths = {
  name: "input.fsxLustre.name",
  deploymentType: "input.fsxLustre.deploymentType",
  capacityGiB: "input.fsxLustre.storageCapacityGiB",
  throughputPerTiB: "input.fsxLustre.throughputPerTiB",
  zone: "input.fsxLustre.zone",
  linkSharedBucket: "input.fsxLustre.linkSharedBucket",
} as const;

/** The deployment types, the default first, with what each is for. */
export const deploymentTypes: readonly { type: FsxDeploymentType; title: string; hint: string }[] = [
  { type: "PERSISTENT_2", title: "Persistent 2", hint: "Replicated in its zone; 125 to 1000 MB/s per TiB; can link the shared bucket." },
  { type: "PERSISTENT_1", title: "Persistent 1", hint: "Replicated in its zone; 50 to 200 MB/s per TiB; cannot link the bucket." },
  { type: "SCRATCH_2", title: "Scratch 2", hint: "Temporary, not replicated, 200 MB/s per TiB: scratch space for short jobs." },
];

// FSx's throughputs by deployment type (engine/storage throughputs).
const throughputs: Record<FsxDeploymentType, readonly number[]> = {
  PERSISTENT_2: [125, 250, 500, 1000],
  PERSISTENT_1: [50, 100, 200],
  SCRATCH_2: [],
};

/** The throughputs (MB/s per TiB) a deployment type takes, the default first; none for SCRATCH_2. */
export function throughputChoices(type: FsxDeploymentType): readonly number[] {
  return throughputs[type];
}

/** The bounds of the capacity: FSx's smallest SSD Lustre file system, its step above that, and its default quota per region. */
export const capacity = { min: 1200, step: 2400, max: 100800 } as const;

/** A blank draft: PERSISTENT_2, the smallest capacity, the default throughput, the first compute subnet. */
export function blankFileSystemDraft(): FileSystemDraft {
  return { name: "", deploymentType: "PERSISTENT_2", capacityGiB: String(capacity.min), throughputPerTiB: 125, zone: "", linkSharedBucket: false };
}

/**
 * The draft with another deployment type: the throughput becomes that
 * type's default (or none), and the bucket is unlinked for a type that
 * cannot link it.
 */
export function withDeploymentType(draft: FileSystemDraft, type: FsxDeploymentType): FileSystemDraft {
  const choices = throughputChoices(type);
  const throughputPerTiB = draft.throughputPerTiB !== null && choices.includes(draft.throughputPerTiB) ? draft.throughputPerTiB : (choices[0] ?? null);
  return { ...draft, deploymentType: type, throughputPerTiB, linkSharedBucket: type === "PERSISTENT_2" && draft.linkSharedBucket };
}

/** Whether the form offers to link the shared bucket: for PERSISTENT_2, once the bucket is AVAILABLE. */
export function canLinkBucket(type: FsxDeploymentType, bucketStatus: string | null): boolean {
  return type === "PERSISTENT_2" && bucketStatus === "AVAILABLE";
}

const namePattern = /^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$/;

/** What is wrong with gib as a Lustre capacity, or null: 1200, or a multiple of 2400, at most 100800. */
export function capacityProblem(gib: number | null): string | null {
  if (gib === null) return "Give the capacity in GiB, a whole number: 1200, or a multiple of 2400.";
  if (gib < capacity.min) return `A Lustre file system holds at least ${capacity.min} GiB, not ${gib}.`;
  if (gib > capacity.max) return `${gib} GiB is more than FSx's default quota of ${capacity.max} GiB of Lustre storage per region.`;
  if (gib !== capacity.min && gib % capacity.step !== 0) {
    const lo = Math.floor(gib / capacity.step) * capacity.step;
    return `FSx takes 1200 GiB or a multiple of 2400 GiB, not ${gib}; the nearest are ${Math.max(lo, capacity.min)} and ${lo + capacity.step}.`;
  }
  return null;
}

/** The checks the server makes before it asks FSx anything. */
export function validateFileSystem(draft: FileSystemDraft, bucketStatus: string | null): FieldErrors {
  const errors: FieldErrors = {};
  const name = draft.name.trim();
  if (name === "") addError(errors, fileSystemPaths.name, "Give the file system a name: the claim is fsx-<name>, pods see it at /fsx/<name>.");
  else if (!namePattern.test(name)) {
    addError(errors, fileSystemPaths.name, `"${name}" must be 1 to 40 lower-case letters, digits and hyphens, starting and ending with a letter or digit.`);
  }
  const problem = capacityProblem(parseWhole(draft.capacityGiB));
  if (problem) addError(errors, fileSystemPaths.capacityGiB, problem);
  const choices = throughputChoices(draft.deploymentType);
  if (choices.length > 0 && (draft.throughputPerTiB === null || !choices.includes(draft.throughputPerTiB))) {
    addError(errors, fileSystemPaths.throughputPerTiB, `A ${draft.deploymentType} file system takes ${choices.join(", ")} MB/s per TiB: choose one.`);
  }
  if (draft.linkSharedBucket && !canLinkBucket(draft.deploymentType, bucketStatus)) {
    addError(
      errors,
      fileSystemPaths.linkSharedBucket,
      draft.deploymentType !== "PERSISTENT_2" ? "Only a PERSISTENT_2 file system links the bucket." : "The shared bucket is not AVAILABLE: add it first, or do not link it.",
    );
  }
  return errors;
}

/**
 * The addStorage variables of a draft: an FSX_LUSTRE storage. The
 * throughput is sent for the types that take one, the zone when one was
 * chosen, and the link only when the form offers it.
 */
export function addFileSystemVariables(clusterId: string, draft: FileSystemDraft, bucketStatus: string | null, idempotencyKey: string): AddStorageMutationVariables {
  const takesThroughput = throughputChoices(draft.deploymentType).length > 0;
  const zone = draft.zone.trim();
  return {
    input: {
      clusterId,
      kind: "FSX_LUSTRE",
      fsxLustre: {
        name: draft.name.trim(),
        deploymentType: draft.deploymentType,
        storageCapacityGiB: parseWhole(draft.capacityGiB) ?? 0,
        ...(takesThroughput && draft.throughputPerTiB !== null && { throughputPerTiB: draft.throughputPerTiB }),
        ...(zone !== "" && { zone }),
        linkSharedBucket: draft.linkSharedBucket && canLinkBucket(draft.deploymentType, bucketStatus),
      },
    },
    idempotencyKey,
  };
}

const fields: ReadonlySet<string> = new Set(Object.values(fileSystemPaths));

/**
 * Where a server error about field belongs: the field of input.fsxLustre
 * it names (a name taken, a capacity or throughput FSx refuses, a zone
 * with no compute subnet, a bucket not ready to link), the name for the
 * file system as a whole, or the top of the form (the cluster's state).
 */
export function addFileSystemFormKey(field: string): string {
  if (fields.has(field)) return field;
  if (field === "input.fsxLustre") return fileSystemPaths.name;
  return generalKey;
}

/** Sorts the server's errors onto the form's fields. */
export function addFileSystemServerErrors(errors: readonly ServerError[]): FieldErrors {
  return sortServerErrors(errors, addFileSystemFormKey);
}
