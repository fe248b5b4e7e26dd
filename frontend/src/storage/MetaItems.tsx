import type { ReactNode } from "react";
import { CopyButton } from "../ui/CopyButton";

/** One term of a storage card's list, two columns wide when wide. */
export function Item({ label, wide, children }: { label: string; wide?: boolean; children: ReactNode }) {
  return (
    <div className={wide ? "meta-wide" : undefined}>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/** A name or command to paste elsewhere, with its copy button. */
export function Copyable({ text }: { text: string }) {
  return (
    <div className="resource-ref">
      <code className="wrap">{text}</code>
      <CopyButton text={text} label={`Copy ${text}`} />
    </div>
  );
}
