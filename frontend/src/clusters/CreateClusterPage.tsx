import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { useMutation, useQuery } from "urql";
import { Link, navigate } from "../app/router";
import { useSession } from "../app/session";
import { deniedReason } from "../auth/session";
import type { CapacityType, NetworkInterfaceMode } from "../gql/graphql";
import { describeOffering, offeringLabel, splitOfferings } from "../instanceGroups/offerings";
import { interfaceWords } from "../instanceGroups/words";
import { ErrorBanner, Loading, errorMessages } from "../ui/feedback";
import { Field, FieldErrorList, FormErrors, inputId, useFocusFirstError } from "../ui/Field";
import { clearField, generalKey, hasErrors, newIdempotencyKey, type FieldErrors } from "../ui/fieldErrors";
import { GuardedButton } from "../ui/GuardedButton";
import {
  defaultRegion,
  fieldPaths,
  maxSystemNodes,
  serverFieldErrors,
  systemNodeDefaults,
  toInput,
  validateDraft,
  type ClusterDraft,
  type GroupDraft,
} from "./createClusterForm";
import { CreateClusterMutation, PreflightInstanceTypesQuery as InstanceTypesQuery, PreflightRegionsQuery, PreflightZonesQuery } from "./documents";

let groupKeys = 0;

function newGroup(zone: string, index: number): GroupDraft {
  return { key: `g${++groupKeys}`, name: index === 0 ? "workers" : `workers-${index + 1}`, zone, instanceType: "", count: "1", capacityType: "ON_DEMAND", networkInterfaceMode: "STANDARD" };
}

/**
 * Asks only the decisions a cluster needs: name, region, zones and optional
 * instance groups. The network and IAM roles are planned by the server.
 */
export function CreateClusterPage() {
  const { me } = useSession();
  const [draft, setDraft] = useState<ClusterDraft>({
    name: "",
    region: "",
    zones: [],
    groups: [],
    systemNodeCount: systemNodeDefaults.count,
    systemInstanceType: systemNodeDefaults.instanceType,
  });
  const [errors, setErrors] = useState<FieldErrors>({});
  const [submitted, setSubmitted] = useState(0);
  const [{ fetching: creating }, createCluster] = useMutation(CreateClusterMutation);
  const idempotencyKey = useRef<string | null>(null);
  const formRef = useFocusFirstError(submitted);

  const [regionsResult] = useQuery({ query: PreflightRegionsQuery });
  // The server's default region is the one its default zones are in.
  const [defaultZonesResult] = useQuery({ query: PreflightZonesQuery, variables: { region: null }, pause: draft.region !== "" });
  const regions = regionsResult.data?.regions ?? [];
  useEffect(() => {
    if (draft.region || !regionsResult.data || !defaultZonesResult.data) return;
    setDraft((d) => (d.region ? d : { ...d, region: defaultRegion(regionsResult.data!.regions, defaultZonesResult.data!.availabilityZones) }));
  }, [draft.region, regionsResult.data, defaultZonesResult.data]);

  const [zonesResult] = useQuery({ query: PreflightZonesQuery, variables: { region: draft.region }, pause: draft.region === "" });
  const zones = zonesResult.data?.availabilityZones ?? [];
  // Preselect the first two zones of a newly chosen region, as the server would.
  const zonesFor = useRef("");
  useEffect(() => {
    if (!zonesResult.data || zonesFor.current === draft.region) return;
    zonesFor.current = draft.region;
    const names = zonesResult.data.availabilityZones.map((z) => z.name);
    setDraft((d) => ({ ...d, zones: names.slice(0, 2), groups: d.groups.map((g) => ({ ...g, zone: names[0] ?? "", instanceType: "" })) }));
  }, [zonesResult.data, draft.region]);

  const change = (next: ClusterDraft, ...touched: string[]) => {
    idempotencyKey.current = null; // a different request deserves its own key
    setDraft(next);
    setErrors((e) => touched.reduce(clearField, clearField(e, generalKey)));
  };

  const setGroup = (i: number, patch: Partial<GroupDraft>, field: Parameters<typeof fieldPaths.group>[1]) => {
    const groups = draft.groups.map((g, j) => (j === i ? { ...g, ...patch } : g));
    change({ ...draft, groups }, fieldPaths.group(i, field));
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validateDraft(draft);
    if (hasErrors(found)) {
      setErrors(found);
      setSubmitted((n) => n + 1);
      return;
    }
    idempotencyKey.current ??= newIdempotencyKey();
    const result = await createCluster({ input: toInput(draft), idempotencyKey: idempotencyKey.current });
    if (result.data) {
      navigate(`/operations/${encodeURIComponent(result.data.createCluster.id)}`);
      return;
    }
    if (result.error) {
      setErrors(
        result.error.graphQLErrors.length > 0
          ? serverFieldErrors(result.error.graphQLErrors, draft.groups.length)
          : { [generalKey]: errorMessages(result.error) },
      );
      setSubmitted((n) => n + 1);
    }
  };

  const denied = deniedReason(me.role, "OPERATOR");
  const general = errors[generalKey] ?? [];

  return (
    <>
      <div className="page-head">
        <div>
          <p className="crumbs">
            <Link to="/clusters">Clusters</Link> /
          </p>
          <h1>Create a cluster</h1>
          <p className="muted">
            An EKS control plane and a SageMaker HyperPod cluster. You decide where and what runs; InstantStart plans the network and IAM
            roles and creates everything, step by step.
          </p>
        </div>
      </div>

      <form ref={formRef} className="form" onSubmit={submit} noValidate aria-busy={creating}>
        <FormErrors title="The cluster was not created" messages={general} />

        <section className="card form-section">
          <h2>Cluster</h2>
          <Field path={fieldPaths.name} label="Name" errors={errors} hint="Letters, digits and single hyphens, starting with a letter; up to 40 characters. Also the EKS and HyperPod cluster name.">
            {(props) => (
              <input
                {...props}
                type="text"
                autoComplete="off"
                spellCheck={false}
                maxLength={60}
                value={draft.name}
                onChange={(e) => change({ ...draft, name: e.target.value }, fieldPaths.name)}
              />
            )}
          </Field>
          <Field path={fieldPaths.region} label="Region" errors={errors} hint="Where the cluster and its network live.">
            {(props) =>
              regionsResult.error ? (
                <p className="field-error">The regions could not be loaded: {errorMessages(regionsResult.error).join(" ")}</p>
              ) : (
                <select
                  {...props}
                  value={draft.region}
                  disabled={regions.length === 0}
                  onChange={(e) => {
                    change({ ...draft, region: e.target.value, zones: [] }, fieldPaths.region, fieldPaths.zones);
                  }}
                >
                  {draft.region === "" && <option value="">{regionsResult.fetching ? "Loading regions…" : "Choose a region"}</option>}
                  {regions.map((r) => (
                    <option key={r} value={r}>
                      {r}
                    </option>
                  ))}
                </select>
              )
            }
          </Field>
        </section>

        <section className="card form-section">
          <fieldset aria-describedby={`${inputId(fieldPaths.zones)}-hint`} aria-invalid={errors[fieldPaths.zones] ? true : undefined}>
            <legend>
              <h2>Availability zones</h2>
            </legend>
            <p id={`${inputId(fieldPaths.zones)}-hint`} className="hint">
              Two or more. Each zone gets a public and a private subnet for the control plane; instance groups run in one of them.
            </p>
            {zonesResult.error ? (
              <ErrorBanner title="The zones could not be loaded" messages={errorMessages(zonesResult.error)} />
            ) : zonesResult.fetching && zones.length === 0 ? (
              <Loading what="zones" />
            ) : (
              <div className="checks" id={inputId(fieldPaths.zones)}>
                {zones.map((z, i) => (
                  <label key={z.name} className="check">
                    <input
                      type="checkbox"
                      checked={draft.zones.includes(z.name)}
                      aria-invalid={i === 0 && errors[fieldPaths.zones] ? true : undefined}
                      onChange={(e) => {
                        const chosen = e.target.checked ? [...draft.zones, z.name] : draft.zones.filter((n) => n !== z.name);
                        const ordered = zones.map((x) => x.name).filter((n) => chosen.includes(n));
                        const groups = draft.groups.map((g) => (ordered.includes(g.zone) ? g : { ...g, zone: ordered[0] ?? "", instanceType: "" }));
                        change({ ...draft, zones: ordered, groups }, fieldPaths.zones);
                      }}
                    />
                    {z.name} <span className="muted">({z.zoneId})</span>
                  </label>
                ))}
              </div>
            )}
            <FieldErrorList messages={errors[fieldPaths.zones]} />
          </fieldset>
        </section>

        <section className="card form-section">
          <h2>Instance groups</h2>
          <p className="hint">
            Optional: the accelerated instances to start with. You can add groups later. Each group runs in one of the cluster's zones, in a
            /20 compute subnet made for it.
          </p>
          {draft.groups.map((g, i) => (
            <GroupFields
              key={g.key}
              index={i}
              group={g}
              region={draft.region}
              zones={draft.zones}
              errors={errors}
              onChange={(patch, field) => setGroup(i, patch, field)}
              onRemove={() => {
                idempotencyKey.current = null;
                setDraft({ ...draft, groups: draft.groups.filter((_, j) => j !== i) });
                // Group errors are keyed by index, which removal shifts.
                setErrors((e) => Object.fromEntries(Object.entries(e).filter(([k]) => !k.startsWith("input.instanceGroups["))));
              }}
            />
          ))}
          <button
            type="button"
            className="button"
            disabled={draft.zones.length === 0}
            onClick={() => change({ ...draft, groups: [...draft.groups, newGroup(draft.zones[0] ?? "", draft.groups.length)] })}
          >
            Add an instance group
          </button>
        </section>

        <section className="card form-section">
          <h2>System nodes</h2>
          <p className="hint">
            An EKS managed node group in the private subnets for CoreDNS, the operators, KEDA, the load balancer controller and routers, so they
            keep running when every instance group is scaled to zero. 0 makes none; you can add, scale or delete it later on the cluster's page.
          </p>
          <Field path={fieldPaths.systemNodeCount} label="Nodes" errors={errors} hint={`0 to ${maxSystemNodes}.`}>
            {(props) => (
              <input
                {...props}
                type="number"
                min={0}
                max={maxSystemNodes}
                step={1}
                value={draft.systemNodeCount}
                onChange={(e) => change({ ...draft, systemNodeCount: e.target.value }, fieldPaths.systemNodeCount, fieldPaths.systemInstanceType)}
              />
            )}
          </Field>
          <Field path={fieldPaths.systemInstanceType} label="Instance type" errors={errors} hint="A small general-purpose EC2 type, without the ml. prefix.">
            {(props) => (
              <input
                {...props}
                type="text"
                autoComplete="off"
                spellCheck={false}
                maxLength={40}
                disabled={draft.systemNodeCount.trim() === "0"}
                value={draft.systemInstanceType}
                onChange={(e) => change({ ...draft, systemInstanceType: e.target.value }, fieldPaths.systemInstanceType)}
              />
            )}
          </Field>
        </section>

        <details className="card form-section advanced">
          <summary>Advanced: what will be created</summary>
          <p>Nothing here needs deciding; this is what InstantStart plans and makes for the cluster:</p>
          <ul>
            <li>a VPC with a /16 range that overlaps no VPC of the region (the first free of 10.0.0.0/16, 10.1.0.0/16, …) and an internet gateway;</li>
            <li>
              in each chosen zone ({draft.zones.length > 0 ? draft.zones.join(", ") : "none chosen yet"}), a public /24 and a private /24 subnet for
              the EKS control plane;
            </li>
            <li>one NAT gateway, so private subnets reach out but nothing reaches in;</li>
            <li>a /20 compute subnet for the instance groups (room for the many addresses EFA needs), and a security group for the nodes;</li>
            <li>IAM roles for EKS and for HyperPod instances, the EKS control plane (Kubernetes 1.33) with its OIDC provider and base add-ons, and the HyperPod cluster.</li>
          </ul>
          <p className="muted">Deleting the cluster deletes all of it, in reverse order.</p>
        </details>

        <div className="form-actions">
          <GuardedButton type="submit" className="button button-primary" deniedReason={denied} disabled={creating}>
            {creating ? "Creating…" : "Create cluster"}
          </GuardedButton>
          <Link to="/clusters" className="button button-quiet">
            Cancel
          </Link>
        </div>
      </form>
    </>
  );
}

interface GroupFieldsProps {
  index: number;
  group: GroupDraft;
  region: string;
  zones: string[];
  errors: FieldErrors;
  onChange: (patch: Partial<GroupDraft>, field: Parameters<typeof fieldPaths.group>[1]) => void;
  onRemove: () => void;
}

function GroupFields({ index, group, region, zones, errors, onChange, onRemove }: GroupFieldsProps) {
  const [offeringsResult] = useQuery({
    query: InstanceTypesQuery,
    variables: { region, zone: group.zone },
    pause: !region || !group.zone,
  });
  const offerings = offeringsResult.data?.instanceTypeOfferings ?? [];
  const chosen = offerings.find((o) => o.instanceType === group.instanceType);
  const { accelerated, cpuOnly } = splitOfferings(offerings);
  const capacityName = useId();
  const interfaceName = useId();
  const p = (field: Parameters<typeof fieldPaths.group>[1]) => fieldPaths.group(index, field);

  return (
    <fieldset className="group">
      <legend>Instance group {index + 1}</legend>
      <div className="group-grid">
        <Field path={p("name")} label="Name" errors={errors}>
          {(props) => (
            <input {...props} type="text" autoComplete="off" spellCheck={false} value={group.name} onChange={(e) => onChange({ name: e.target.value }, "name")} />
          )}
        </Field>
        <Field path={p("zone")} label="Zone" errors={errors}>
          {(props) => (
            <select {...props} value={group.zone} onChange={(e) => onChange({ zone: e.target.value, instanceType: "" }, "zone")}>
              {!zones.includes(group.zone) && <option value="">Choose a zone</option>}
              {zones.map((z) => (
                <option key={z} value={z}>
                  {z}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field path={p("instanceType")} label="Instance type" errors={errors} hint={chosen ? describeOffering(chosen) : `Offered in ${group.zone || "the zone"}.`}>
          {(props) =>
            offeringsResult.error ? (
              <p className="field-error">The instance types could not be loaded: {errorMessages(offeringsResult.error).join(" ")}</p>
            ) : (
              <select
                {...props}
                value={group.instanceType}
                disabled={!group.zone || offeringsResult.fetching}
                onChange={(e) => onChange({ instanceType: e.target.value }, "instanceType")}
              >
                <option value="">{offeringsResult.fetching ? "Loading instance types…" : "Choose an instance type"}</option>
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
              </select>
            )
          }
        </Field>
        <Field path={p("count")} label="Count" errors={errors} hint="0 to 1000 instances.">
          {(props) => (
            <input {...props} type="number" inputMode="numeric" min={0} max={1000} step={1} value={group.count} onChange={(e) => onChange({ count: e.target.value }, "count")} />
          )}
        </Field>
        <div className="field">
          <span className="label" id={`${capacityName}-label`}>
            Capacity
          </span>
          <div className="radios" role="radiogroup" aria-labelledby={`${capacityName}-label`}>
            {(["ON_DEMAND", "SPOT"] as CapacityType[]).map((c) => (
              <label key={c} className="check">
                <input type="radio" name={capacityName} value={c} checked={group.capacityType === c} onChange={() => onChange({ capacityType: c }, "capacityType")} />
                {c === "ON_DEMAND" ? "On-demand" : "Spot"}
              </label>
            ))}
          </div>
          <p className="hint">{group.capacityType === "SPOT" ? "Cheaper; instances may be reclaimed. Fixed for the group's life." : "Fixed for the group's life."}</p>
          <FieldErrorList messages={errors[p("capacityType")]} />
        </div>
        <div className="field">
          <span className="label" id={`${interfaceName}-label`}>
            Network interfaces
          </span>
          <div className="radios" role="radiogroup" aria-labelledby={`${interfaceName}-label`} id={inputId(p("networkInterfaceMode"))}>
            {(Object.keys(interfaceWords) as NetworkInterfaceMode[]).map((m) => (
              <label key={m} className="check">
                <input
                  type="radio"
                  name={interfaceName}
                  value={m}
                  checked={group.networkInterfaceMode === m}
                  aria-invalid={m === group.networkInterfaceMode && errors[p("networkInterfaceMode")] ? true : undefined}
                  onChange={() => onChange({ networkInterfaceMode: m }, "networkInterfaceMode")}
                />
                {interfaceWords[m]}
              </label>
            ))}
          </div>
          <p className="hint">
            {group.networkInterfaceMode === "EFA_ONLY"
              ? "The EFA device without ENA, for instances that reach the network through another interface."
              : "The EFA device plus an ENA device for IP networking: the usual choice."}{" "}
            Fixed for the group's life.
          </p>
          <FieldErrorList messages={errors[p("networkInterfaceMode")]} />
        </div>
      </div>
      <button type="button" className="button button-quiet" onClick={onRemove}>
        Remove group {index + 1}
      </button>
    </fieldset>
  );
}
