import { useId, useRef, useState, type FormEvent, type ReactNode } from "react";
import { useMutation, useQuery } from "urql";
import { Link, navigate } from "../app/router";
import { useSession } from "../app/session";
import { deniedReason } from "../auth/session";
import { PreflightInstanceTypesQuery } from "../clusters/documents";
import type { CapacityType, NetworkInterfaceMode, TrainingPlansQuery as TrainingPlans } from "../gql/graphql";
import { EmptyState, ErrorBanner, Loading, errorMessages } from "../ui/feedback";
import { Field, FieldErrorList, FormErrors, inputId, useFocusFirstError } from "../ui/Field";
import { clearField, generalKey, hasErrors, newIdempotencyKey, parseWhole, type FieldErrors } from "../ui/fieldErrors";
import { GuardedButton } from "../ui/GuardedButton";
import { formatTime } from "../ui/time";
import {
  addPaths,
  addServerErrors,
  deepHealthCheckNames,
  defaultThreadsPerCore,
  effectiveType,
  effectiveZone,
  flexibleAllowed,
  newAddDraft,
  planFixesType,
  toAddInput,
  validateAddDraft,
  type AddGroupDraft,
} from "./addGroupForm";
import { AddInstanceGroupFormQuery, AddInstanceGroupMutation, TrainingPlansQuery } from "./documents";
import { DeepHealthChecksField, LabelsEditor, TaintsEditor } from "./KubernetesConfigEditor";
import { describeOffering, offeringLabel, offeringSpec, splitOfferings, type Offering } from "./offerings";
import { QuotaHint } from "./QuotaHint";
import { capacityWords, fixedReason, interfaceWords } from "./words";

type Plan = TrainingPlans["trainingPlans"][number];

/**
 * Asks the decisions a new instance group needs: its name, how it is bought,
 * where it runs, what runs and how many. The compute subnet, placement and
 * the rest are settled by the server in one operation, whose page it opens.
 */
export function AddInstanceGroupPage({ clusterId }: { clusterId: string }) {
  const [{ data, fetching, error }] = useQuery({ query: AddInstanceGroupFormQuery, variables: { clusterId } });
  const cluster = data?.cluster;
  if (!cluster) {
    if (error) return <ErrorBanner title="The cluster could not be loaded" messages={errorMessages(error)} />;
    return fetching ? <Loading what="the cluster" /> : <EmptyState title="No such cluster" />;
  }
  return <AddInstanceGroupForm cluster={cluster} />;
}

interface ClusterInfo {
  id: string;
  name: string;
  region: string;
  zones: string[];
  status: string;
  instanceGroups: { name: string }[];
}

function AddInstanceGroupForm({ cluster }: { cluster: ClusterInfo }) {
  const { me } = useSession();
  const [draft, setDraft] = useState<AddGroupDraft>(() => newAddDraft(cluster.zones[0] ?? ""));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [attempt, setAttempt] = useState(0);
  const formRef = useFocusFirstError(attempt);
  const idempotencyKey = useRef<string | null>(null);
  const [{ fetching: adding }, addGroup] = useMutation(AddInstanceGroupMutation);

  const training = draft.capacityType === "TRAINING_PLAN";
  const [plansResult] = useQuery({ query: TrainingPlansQuery, variables: { region: cluster.region }, pause: !training });
  const plans = plansResult.data?.trainingPlans ?? [];
  const plan = training ? (plans.find((p) => p.arn === draft.trainingPlanArn) ?? null) : null;
  const zone = effectiveZone(draft, plan);
  const [offeringsResult] = useQuery({ query: PreflightInstanceTypesQuery, variables: { region: cluster.region, zone }, pause: !zone });
  const offerings = offeringsResult.data?.instanceTypeOfferings ?? [];
  const firstType = effectiveType(draft, plan);

  const change = (patch: Partial<AddGroupDraft>, ...touched: string[]) => {
    idempotencyKey.current = null; // a different request deserves its own key
    setDraft((d) => ({ ...d, ...patch }));
    setErrors((e) => touched.reduce(clearField, clearField(e, generalKey)));
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validateAddDraft(draft, { zones: cluster.zones, groupNames: cluster.instanceGroups.map((g) => g.name), plan });
    if (hasErrors(found)) {
      setErrors(found);
      setAttempt((n) => n + 1);
      return;
    }
    idempotencyKey.current ??= newIdempotencyKey();
    const result = await addGroup({ input: toAddInput(cluster.id, draft, plan), idempotencyKey: idempotencyKey.current });
    if (result.data) {
      navigate(`/operations/${encodeURIComponent(result.data.addInstanceGroup.id)}`);
      return;
    }
    if (result.error) {
      setErrors(result.error.graphQLErrors.length > 0 ? addServerErrors(result.error.graphQLErrors, draft, plan) : { [generalKey]: errorMessages(result.error) });
      setAttempt((n) => n + 1);
    }
  };

  const denied =
    deniedReason(me.role, "OPERATOR") ?? (cluster.status !== "ACTIVE" ? `The cluster is ${cluster.status}; groups can be added once it is ACTIVE.` : undefined);
  const groupsPath = `/clusters/${encodeURIComponent(cluster.id)}/instance-groups`;
  const count = parseWhole(draft.count);

  return (
    <>
      <div className="page-head">
        <div>
          <p className="crumbs">
            <Link to="/clusters">Clusters</Link> / <Link to={groupsPath}>{cluster.name}</Link> /
          </p>
          <h1>Add an instance group</h1>
          <p className="muted">
            Instances of one type (or a prioritised list of types) in one of the cluster's zones. InstantStart checks the zone's offerings,
            your quota and the training plan first, finds or makes the zone's compute subnet, and adds the group to HyperPod.
          </p>
        </div>
      </div>

      <form ref={formRef} className="form" onSubmit={submit} noValidate aria-busy={adding}>
        <FormErrors title="The group was not added" messages={errors[generalKey]} />

        <section className="card form-section">
          <h2>Group</h2>
          <Field path={addPaths.name} label="Name" errors={errors} hint="Letters, digits and hyphens, 1-63 characters, starting and ending with a letter or digit; unique in the cluster.">
            {(props) => (
              <input
                {...props}
                type="text"
                autoComplete="off"
                spellCheck={false}
                maxLength={80}
                value={draft.name}
                onChange={(e) => change({ name: e.target.value }, addPaths.name)}
              />
            )}
          </Field>
        </section>

        <section className="card form-section">
          <h2>Capacity</h2>
          <RadioField<CapacityType>
            path={addPaths.capacityType}
            label="How the instances are bought"
            errors={errors}
            value={draft.capacityType}
            options={[
              ["ON_DEMAND", capacityWords.ON_DEMAND, "Pay by the hour; available as long as the zone has capacity."],
              ["SPOT", capacityWords.SPOT, "Cheaper; instances may be reclaimed when EC2 needs the capacity back. One instance type only."],
              ["TRAINING_PLAN", capacityWords.TRAINING_PLAN, "Capacity reserved by a SageMaker training plan, which fixes the type and the zone."],
            ]}
            hint={fixedReason}
            onChange={(capacityType) =>
              change(
                {
                  capacityType,
                  flexible: flexibleAllowed(capacityType) ? draft.flexible : false,
                  trainingPlanArn: capacityType === "TRAINING_PLAN" ? draft.trainingPlanArn : "",
                },
                addPaths.capacityType,
                addPaths.trainingPlanArn,
              )
            }
          />
          {training && (
            <Field
              path={addPaths.trainingPlanArn}
              label="Training plan"
              errors={errors}
              hint={plan ? describePlan(plan) : `The plans of ${cluster.region}; a group on a plan runs in the plan's zone.`}
            >
              {(props) =>
                plansResult.error ? (
                  <p className="field-error">The training plans could not be loaded: {errorMessages(plansResult.error).join(" ")}</p>
                ) : (
                  <select
                    {...props}
                    value={draft.trainingPlanArn}
                    disabled={plansResult.fetching && plans.length === 0}
                    onChange={(e) => change({ trainingPlanArn: e.target.value, instanceType: "" }, addPaths.trainingPlanArn, addPaths.count)}
                  >
                    <option value="">
                      {plansResult.fetching && plans.length === 0 ? "Loading training plans…" : plans.length === 0 ? "The region has no training plans" : "Choose a training plan"}
                    </option>
                    {plans.map((p) => (
                      <option key={p.arn} value={p.arn}>
                        {p.name} — {p.instanceType ?? "any type"} in {p.zone ?? "any zone"}, {p.availableCount} of {p.totalCount} free ({p.status})
                      </option>
                    ))}
                  </select>
                )
              }
            </Field>
          )}
        </section>

        <section className="card form-section">
          <h2>Placement and instances</h2>
          {training ? (
            <ReadOnly label="Availability zone" value={plan?.zone ?? "—"} note={plan ? "The training plan's zone." : "Choose a plan first: the group runs in its zone."} />
          ) : (
            <Field path={addPaths.zone} label="Availability zone" errors={errors} hint={`One of the cluster's zones. ${fixedReason}`}>
              {(props) => (
                <select {...props} value={draft.zone} onChange={(e) => change({ zone: e.target.value, instanceType: "", instanceTypes: [] }, addPaths.zone, addPaths.instanceType, addPaths.instanceTypes)}>
                  {!cluster.zones.includes(draft.zone) && <option value="">Choose a zone</option>}
                  {cluster.zones.map((z) => (
                    <option key={z} value={z}>
                      {z}
                    </option>
                  ))}
                </select>
              )}
            </Field>
          )}

          {planFixesType(draft, plan) ? (
            <ReadOnly label="Instance type" value={<code>{plan.instanceType}</code>} note="The type the training plan reserves." />
          ) : training && !plan ? (
            <ReadOnly label="Instance type" value="—" note="Choose a plan first: it reserves the type." />
          ) : (
            <>
              {flexibleAllowed(draft.capacityType) && (
                <div className="field">
                  <label className="check">
                    <input
                      type="checkbox"
                      checked={draft.flexible}
                      onChange={(e) =>
                        change(
                          { flexible: e.target.checked, instanceTypes: e.target.checked && draft.instanceType ? [draft.instanceType] : draft.instanceTypes },
                          addPaths.instanceType,
                          addPaths.instanceTypes,
                        )
                      }
                    />
                    A prioritised list of instance types (a flexible group: HyperPod launches the first type it can get)
                  </label>
                </div>
              )}
              {draft.flexible ? (
                <FlexibleTypes
                  types={draft.instanceTypes}
                  offerings={offerings}
                  loading={offeringsResult.fetching}
                  loadError={offeringsResult.error ? errorMessages(offeringsResult.error).join(" ") : null}
                  zone={zone}
                  errors={errors[addPaths.instanceTypes]}
                  onChange={(instanceTypes) => change({ instanceTypes }, addPaths.instanceTypes)}
                />
              ) : (
                <Field
                  path={addPaths.instanceType}
                  label="Instance type"
                  errors={errors}
                  hint={offeringHint(offerings.find((o) => o.instanceType === draft.instanceType), zone)}
                >
                  {(props) =>
                    offeringsResult.error ? (
                      <p className="field-error">The instance types could not be loaded: {errorMessages(offeringsResult.error).join(" ")}</p>
                    ) : (
                      <select
                        {...props}
                        value={draft.instanceType}
                        disabled={!zone || (offeringsResult.fetching && offerings.length === 0)}
                        onChange={(e) => change({ instanceType: e.target.value }, addPaths.instanceType)}
                      >
                        <option value="">{offeringsResult.fetching ? "Loading instance types…" : zone ? "Choose an instance type" : "Choose a zone first"}</option>
                        <OfferingOptions offerings={offerings} />
                      </select>
                    )
                  }
                </Field>
              )}
            </>
          )}

          <div className="group-grid">
            <Field path={addPaths.count} label="Count" errors={errors} hint="0 to 1000 instances (0 for a group that managed autoscaling grows).">
              {(props) => (
                <input
                  {...props}
                  type="number"
                  inputMode="numeric"
                  min={0}
                  max={1000}
                  step={1}
                  value={draft.count}
                  onChange={(e) => change({ count: e.target.value }, addPaths.count, addPaths.minCount)}
                />
              )}
            </Field>
            <Field path={addPaths.minCount} label="Minimum count" errors={errors} hint="How many must run for the group to be InService when it is created. Empty: the count.">
              {(props) => (
                <input
                  {...props}
                  type="number"
                  inputMode="numeric"
                  min={0}
                  max={1000}
                  step={1}
                  placeholder={count !== null ? String(count) : ""}
                  value={draft.minCount}
                  onChange={(e) => change({ minCount: e.target.value }, addPaths.minCount)}
                />
              )}
            </Field>
          </div>
          {training && plan ? (
            <p className="hint">
              The plan has {plan.availableCount} of {plan.totalCount} instances free; its capacity is reserved, so no quota applies.
            </p>
          ) : (
            count !== null && count > 0 && <QuotaHint region={cluster.region} instanceType={firstType} adding={count} />
          )}
        </section>

        <section className="card form-section">
          <h2>Instance settings</h2>
          <RadioField<NetworkInterfaceMode>
            path={addPaths.networkInterfaceMode}
            label="Network interfaces"
            errors={errors}
            value={draft.networkInterfaceMode}
            options={[
              ["STANDARD", interfaceWords.STANDARD, "The EFA device for collective communication plus an ENA device for IP networking: the usual choice."],
              ["EFA_ONLY", interfaceWords.EFA_ONLY, "The EFA device without ENA, for instances that reach the network through another interface."],
            ]}
            hint={fixedReason}
            onChange={(networkInterfaceMode) => change({ networkInterfaceMode }, addPaths.networkInterfaceMode)}
          />
          <div className="group-grid">
            <Field
              path={addPaths.threadsPerCore}
              label="Threads per core"
              errors={errors}
              hint="The default is 2 on p4, p5 and p6 instances and on training plans, else 1."
            >
              {(props) => (
                <select {...props} value={draft.threadsPerCore} onChange={(e) => change({ threadsPerCore: e.target.value as AddGroupDraft["threadsPerCore"] }, addPaths.threadsPerCore)}>
                  <option value="">Default: {defaultThreadsPerCore(firstType, training)}</option>
                  <option value="1">1 (one thread per core)</option>
                  <option value="2">2 (hyperthreading)</option>
                </select>
              )}
            </Field>
            <Field path={addPaths.volumeSizeGb} label="Volume per instance (GiB)" errors={errors} hint="The EBS volume each instance gets, 50 to 16384 GiB.">
              {(props) => (
                <input
                  {...props}
                  type="number"
                  inputMode="numeric"
                  min={50}
                  max={16384}
                  step={1}
                  value={draft.volumeSizeGb}
                  onChange={(e) => change({ volumeSizeGb: e.target.value }, addPaths.volumeSizeGb)}
                />
              )}
            </Field>
          </div>
          <DeepHealthChecksField
            path={addPaths.deepHealthChecks}
            names={deepHealthCheckNames}
            chosen={draft.deepHealthChecks}
            errors={errors[addPaths.deepHealthChecks]}
            onChange={(deepHealthChecks) => change({ deepHealthChecks }, addPaths.deepHealthChecks)}
          />
        </section>

        <section className="card form-section">
          <h2>Kubernetes</h2>
          <LabelsEditor path={addPaths.labels} rows={draft.labels} errors={errors[addPaths.labels]} onChange={(labels) => change({ labels }, addPaths.labels)} />
          <TaintsEditor path={addPaths.taints} rows={draft.taints} errors={errors[addPaths.taints]} onChange={(taints) => change({ taints }, addPaths.taints)} />
        </section>

        <div className="form-actions">
          <GuardedButton type="submit" className="button button-primary" deniedReason={denied} disabled={adding}>
            {adding ? "Adding…" : "Add instance group"}
          </GuardedButton>
          <Link to={groupsPath} className="button button-quiet">
            Cancel
          </Link>
        </div>
      </form>
    </>
  );
}

function describePlan(p: Plan): string {
  const window = p.startTime || p.endTime ? ` Reserved ${formatTime(p.startTime)} to ${formatTime(p.endTime)}.` : "";
  return `${p.status}: ${p.availableCount} of ${p.totalCount} ${p.instanceType ?? "instances"} free in ${p.zone ?? "its zone"}.${window}`;
}

function offeringHint(o: Offering | undefined, zone: string): string {
  if (o) return describeOffering(o);
  return zone ? `The types ${zone} offers, accelerated first.` : "Choose a zone first.";
}

function OfferingOptions({ offerings, exclude = [] }: { offerings: readonly Offering[]; exclude?: readonly string[] }) {
  const { accelerated, cpuOnly } = splitOfferings(offerings.filter((o) => !exclude.includes(o.instanceType)));
  return (
    <>
      {accelerated.length > 0 && (
        <optgroup label="Accelerated">
          {accelerated.map((o) => (
            <option key={o.instanceType} value={o.instanceType}>
              {offeringLabel(o)}
            </option>
          ))}
        </optgroup>
      )}
      {cpuOnly.length > 0 && (
        <optgroup label="CPU only">
          {cpuOnly.map((o) => (
            <option key={o.instanceType} value={o.instanceType}>
              {offeringLabel(o)}
            </option>
          ))}
        </optgroup>
      )}
    </>
  );
}

interface FlexibleTypesProps {
  types: string[];
  offerings: readonly Offering[];
  loading: boolean;
  loadError: string | null;
  zone: string;
  errors: string[] | undefined;
  onChange: (types: string[]) => void;
}

/** The prioritised list of a flexible group: add from the zone's offerings, reorder, remove. */
function FlexibleTypes({ types, offerings, loading, loadError, zone, errors, onChange }: FlexibleTypesProps) {
  const id = inputId(addPaths.instanceTypes);
  const move = (i: number, by: number) => {
    const next = [...types];
    const [t] = next.splice(i, 1);
    next.splice(i + by, 0, t!);
    onChange(next);
  };
  return (
    <div className="field">
      <label htmlFor={id}>Instance types, first choice first</label>
      {types.length > 0 && (
        <ol className="priority-list">
          {types.map((t, i) => {
            const o = offerings.find((x) => x.instanceType === t);
            return (
              <li key={t}>
                <span>
                  <code>{t}</code> {o && <span className="muted">{offeringSpec(o)}</span>}
                </span>
                <span className="row-actions">
                  <button type="button" className="button" disabled={i === 0} onClick={() => move(i, -1)} aria-label={`Move ${t} up`}>
                    Up
                  </button>
                  <button type="button" className="button" disabled={i === types.length - 1} onClick={() => move(i, 1)} aria-label={`Move ${t} down`}>
                    Down
                  </button>
                  <button type="button" className="button button-quiet" onClick={() => onChange(types.filter((x) => x !== t))} aria-label={`Remove ${t}`}>
                    Remove
                  </button>
                </span>
              </li>
            );
          })}
        </ol>
      )}
      {loadError ? (
        <p className="field-error">The instance types could not be loaded: {loadError}</p>
      ) : (
        <select
          id={id}
          value=""
          disabled={!zone || types.length >= 10 || (loading && offerings.length === 0)}
          aria-invalid={errors ? true : undefined}
          aria-describedby={`${id}-hint${errors ? ` ${id}-error` : ""}`}
          onChange={(e) => e.target.value && onChange([...types, e.target.value])}
        >
          <option value="">{loading ? "Loading instance types…" : types.length >= 10 ? "The list is full (10 types)" : "Add a type to the list…"}</option>
          <OfferingOptions offerings={offerings} exclude={types} />
        </select>
      )}
      <p id={`${id}-hint`} className="hint">
        2 to 10 types offered in {zone || "the zone"}. HyperPod launches the first it has capacity for, then the next. {fixedReason}
      </p>
      <FieldErrorList id={`${id}-error`} messages={errors} />
    </div>
  );
}

interface RadioFieldProps<V extends string> {
  path: string;
  label: string;
  value: V;
  options: [V, string, string][];
  hint: string;
  errors: FieldErrors;
  onChange: (value: V) => void;
}

function RadioField<V extends string>({ path, label, value, options, hint, errors, onChange }: RadioFieldProps<V>) {
  const name = useId();
  const id = inputId(path);
  const messages = errors[path];
  return (
    <fieldset className="field" aria-describedby={`${id}-hint${messages ? ` ${id}-error` : ""}`}>
      <legend className="label">{label}</legend>
      <div className="choices" id={id}>
        {options.map(([v, words, note], i) => (
          <label key={v} className="choice">
            <input type="radio" name={name} value={v} checked={value === v} aria-invalid={i === 0 && messages ? true : undefined} onChange={() => onChange(v)} />
            <span>
              <span className="strong">{words}</span>
              <span className="hint">{note}</span>
            </span>
          </label>
        ))}
      </div>
      <p id={`${id}-hint`} className="hint">
        {hint}
      </p>
      <FieldErrorList id={`${id}-error`} messages={messages} />
    </fieldset>
  );
}

function ReadOnly({ label, value, note }: { label: string; value: ReactNode; note: string }) {
  return (
    <div className="field">
      <span className="label">{label}</span>
      <span>{value}</span>
      <p className="hint">{note}</p>
    </div>
  );
}
