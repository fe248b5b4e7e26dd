import { describe, expect, it } from "vitest";
import { generalKey } from "../ui/fieldErrors";
import {
  addFileSystemServerErrors,
  addFileSystemVariables,
  blankFileSystemDraft,
  canLinkBucket,
  capacityProblem,
  throughputChoices,
  validateFileSystem,
  withDeploymentType,
  type FileSystemDraft,
} from "./addFileSystemForm";

const draft = (patch: Partial<FileSystemDraft>): FileSystemDraft => ({ ...blankFileSystemDraft(), name: "scratch", ...patch });

describe("capacityProblem", () => {
  it.each([1200, 2400, 4800, 100800])("takes %d GiB", (gib) => {
    expect(capacityProblem(gib)).toBeNull();
  });

  it.each([
    [null, /whole number/],
    [0, /at least 1200 GiB, not 0/],
    [1199, /at least 1200/],
    [1800, /not 1800; the nearest are 1200 and 2400/],
    [3600, /not 3600; the nearest are 2400 and 4800/],
    [103200, /more than FSx's default quota of 100800/],
  ])("%j: %s", (gib, want) => {
    expect(capacityProblem(gib)).toMatch(want);
  });
});

describe("throughputChoices and withDeploymentType", () => {
  it.each([
    ["PERSISTENT_2", [125, 250, 500, 1000]],
    ["PERSISTENT_1", [50, 100, 200]],
    ["SCRATCH_2", []],
  ] as const)("%s takes %j", (type, want) => {
    expect(throughputChoices(type)).toEqual(want);
  });

  it("moves the throughput to the new type's default, and none for scratch", () => {
    const p1 = withDeploymentType(draft({ throughputPerTiB: 500 }), "PERSISTENT_1");
    expect(p1.throughputPerTiB).toBe(50);
    expect(withDeploymentType(p1, "SCRATCH_2").throughputPerTiB).toBeNull();
    expect(withDeploymentType(withDeploymentType(p1, "SCRATCH_2"), "PERSISTENT_2").throughputPerTiB).toBe(125);
  });

  it("unlinks the bucket for a type that cannot link it", () => {
    const linked = draft({ linkSharedBucket: true });
    expect(withDeploymentType(linked, "PERSISTENT_1").linkSharedBucket).toBe(false);
    expect(withDeploymentType(linked, "PERSISTENT_2").linkSharedBucket).toBe(true);
  });

  it.each([
    ["PERSISTENT_2", "AVAILABLE", true],
    ["PERSISTENT_2", "CREATING", false],
    ["PERSISTENT_2", null, false],
    ["PERSISTENT_1", "AVAILABLE", false],
    ["SCRATCH_2", "AVAILABLE", false],
  ] as const)("%s with the bucket %s offers the link: %s", (type, bucket, want) => {
    expect(canLinkBucket(type, bucket)).toBe(want);
  });
});

describe("validateFileSystem", () => {
  it("takes the defaults with a name", () => {
    expect(validateFileSystem(draft({}), null)).toEqual({});
  });

  it.each([
    [{ name: "" }, "input.fsxLustre.name", /Give the file system a name/],
    [{ name: "Scratch_1" }, "input.fsxLustre.name", /lower-case letters, digits and hyphens/],
    [{ name: "x".repeat(41) }, "input.fsxLustre.name", /1 to 40/],
    [{ capacityGiB: "1300" }, "input.fsxLustre.storageCapacityGiB", /1200 GiB or a multiple of 2400/],
    [{ capacityGiB: "12e2" }, "input.fsxLustre.storageCapacityGiB", /whole number/],
    [{ throughputPerTiB: 50 }, "input.fsxLustre.throughputPerTiB", /PERSISTENT_2 file system takes 125, 250, 500, 1000/],
    [{ linkSharedBucket: true }, "input.fsxLustre.linkSharedBucket", /not AVAILABLE/],
  ])("%j: at %s", (patch, field, want) => {
    const errors = validateFileSystem(draft(patch), null);
    expect(Object.keys(errors)).toEqual([field]);
    expect(errors[field]![0]).toMatch(want);
  });
});

describe("addFileSystemVariables", () => {
  it("sends a PERSISTENT_2 file system with its throughput, linked when asked and the bucket is AVAILABLE", () => {
    expect(addFileSystemVariables("c1", draft({ name: " ckpt ", capacityGiB: " 2400 ", throughputPerTiB: 250, linkSharedBucket: true }), "AVAILABLE", "k1")).toEqual({
      input: {
        clusterId: "c1",
        kind: "FSX_LUSTRE",
        fsxLustre: { name: "ckpt", deploymentType: "PERSISTENT_2", storageCapacityGiB: 2400, throughputPerTiB: 250, linkSharedBucket: true },
      },
      idempotencyKey: "k1",
    });
  });

  it("sends no throughput for SCRATCH_2, and the zone chosen", () => {
    const v = addFileSystemVariables("c1", withDeploymentType(draft({ zone: "us-west-2b" }), "SCRATCH_2"), "AVAILABLE", "k1");
    expect(v.input.fsxLustre).toEqual({ name: "scratch", deploymentType: "SCRATCH_2", storageCapacityGiB: 1200, zone: "us-west-2b", linkSharedBucket: false });
  });

  it.each([
    ["PERSISTENT_1", "AVAILABLE"],
    ["PERSISTENT_2", "CREATING"],
  ] as const)("never links the bucket for %s with the bucket %s", (type, bucket) => {
    const v = addFileSystemVariables("c1", { ...withDeploymentType(draft({}), type), linkSharedBucket: true }, bucket, "k1");
    expect(v.input.fsxLustre!.linkSharedBucket).toBe(false);
  });
});

describe("addFileSystemServerErrors", () => {
  const error = (code: string, message: string, field?: string) => ({ message, extensions: field ? { code, field } : { code } });

  it.each([
    ["CONFLICT", "input.fsxLustre.name"],
    ["VALIDATION", "input.fsxLustre.deploymentType"],
    ["VALIDATION", "input.fsxLustre.storageCapacityGiB"],
    ["VALIDATION", "input.fsxLustre.throughputPerTiB"],
    ["VALIDATION", "input.fsxLustre.zone"],
    ["PRECONDITION", "input.fsxLustre.linkSharedBucket"],
  ])("puts a %s error about %s at its field", (code, field) => {
    expect(addFileSystemServerErrors([error(code, "no", field)])).toEqual({ [field]: ["no"] });
  });

  it("puts an error about the whole file system at its name, and the cluster's at the top", () => {
    expect(addFileSystemServerErrors([error("VALIDATION", "needs input.fsxLustre", "input.fsxLustre"), error("PRECONDITION", "cluster c has no compute subnet")])).toEqual({
      "input.fsxLustre.name": ["needs input.fsxLustre"],
      [generalKey]: ["cluster c has no compute subnet"],
    });
  });
});
