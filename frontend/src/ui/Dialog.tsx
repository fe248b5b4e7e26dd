import { useEffect, useId, useRef, type ReactNode } from "react";

interface Props {
  title: ReactNode;
  onClose: () => void;
  children: ReactNode;
  wide?: boolean;
}

/**
 * A modal dialog: focus stays inside and Escape closes it. It opens when
 * mounted; unmounting removes it (closing it here would report a close the
 * user never asked for).
 */
export function Dialog({ title, onClose, children, wide }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const d = dialog.current;
    if (d && !d.open) d.showModal();
  }, []);
  return (
    <dialog ref={dialog} className={wide ? "dialog dialog-wide" : "dialog"} aria-labelledby={titleId} onClose={onClose}>
      <h2 id={titleId}>{title}</h2>
      {children}
    </dialog>
  );
}
