import { describe, expect, it } from "vitest";
import { resumeSeconds } from "./RestartTimeline";

describe("resumeSeconds", () => {
  it("counts the seconds from the restart to the resume, rounded", () => {
    expect(resumeSeconds("2026-12-07T10:00:00Z", "2026-12-07T10:00:41.4Z")).toBe(41);
  });
  it("never goes below 0, and is null for times that do not read", () => {
    expect(resumeSeconds("2026-12-07T10:00:05Z", "2026-12-07T10:00:00Z")).toBe(0);
    expect(resumeSeconds("soon", "2026-12-07T10:00:00Z")).toBeNull();
  });
});
