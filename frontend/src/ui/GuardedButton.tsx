import { useId, type ButtonHTMLAttributes } from "react";

type Props = ButtonHTMLAttributes<HTMLButtonElement> & {
  /** Why the button cannot be used now; it is then disabled and says so. */
  deniedReason?: string | undefined;
};

/**
 * A button that, when the caller may not use it, stays visible but
 * disabled, with the reason next to it (and read out with it).
 */
export function GuardedButton({ deniedReason, disabled, children, className, ...rest }: Props) {
  const reasonId = useId();
  return (
    <span className="guarded">
      <button
        type="button"
        className={className ?? "button"}
        disabled={disabled || deniedReason !== undefined}
        aria-describedby={deniedReason ? reasonId : undefined}
        title={deniedReason}
        {...rest}
      >
        {children}
      </button>
      {deniedReason && (
        <span id={reasonId} className="guarded-reason">
          {deniedReason}
        </span>
      )}
    </span>
  );
}
