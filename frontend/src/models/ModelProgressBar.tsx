import { statusTone } from "../ui/status";
import { modelProgress } from "./modelProgress";

interface Props {
  model: { name: string; status: string; filesDone: number; filesTotal: number; bytesDone: number; bytesTotal: number };
}

/**
 * How much of a model the bucket holds, whole: a bar by bytes in the
 * colour of its status (a failed download's bar is red, however full),
 * with the files and bytes in words beside it.
 */
export function ModelProgressBar({ model: m }: Props) {
  const p = modelProgress(m);
  const words = `${p.files}, ${p.bytes}`;
  return (
    <div className="model-progress">
      <div
        className={`progress tone-${statusTone(m.status)}`}
        role="progressbar"
        aria-label={`Download of ${m.name}`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={p.percent}
        aria-valuetext={`${p.percent}%: ${words}`}
      >
        <span className="progress-fill" style={{ width: `${p.fraction * 100}%` }} />
      </div>
      <span className="cell-note">
        {words} · {p.percent}%
      </span>
    </div>
  );
}
