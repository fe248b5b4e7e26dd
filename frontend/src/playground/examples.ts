// The saved example operations of the playground: its first tabs, and the
// Examples panel that opens any of them in a new tab. They are plain strings
// (not graphql() documents, which codegen would type); examples.test.ts
// checks each against ../schema.

export interface Example {
  /** What the example shows, in the Examples panel. */
  title: string;
  /** One line on when to use it. */
  description: string;
  query: string;
  /** The variables editor's contents, as JSON. */
  variables?: string;
}

/** Who the caller is; the playground asks it first to see that the session works. */
export const meQuery = "query PlaygroundMe { me { name role } }";

export const examples: Example[] = [
  {
    title: "List clusters",
    description: "Every live cluster with its status, and the event cursor to follow changes from.",
    query: `# Clusters, oldest first. Follow changes after this page with the
# "Events from a cursor" example, passing eventCursor as since.
query ListClusters($first: Int) {
  clusters(first: $first) {
    totalCount
    eventCursor
    edges {
      node {
        id
        name
        region
        kubernetesVersion
        zones
        status
        statusMessage
        instanceGroups {
          name
          status
          currentCount
          targetCount
        }
        createdAt
      }
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
`,
    variables: `{
  "first": 20
}
`,
  },
  {
    title: "Create a cluster",
    description: "Start a createCluster operation; follow it with waitOperation or the events subscription.",
    query: `# Returns the operation at once; the cluster is built in the background.
# Copy the operation's id into the "Wait for an operation" example.
mutation CreateCluster($input: CreateClusterInput!, $idempotencyKey: String) {
  createCluster(input: $input, idempotencyKey: $idempotencyKey) {
    id
    kind
    status
    target {
      kind
      id
      name
    }
    phases {
      name
      status
    }
  }
}
`,
    variables: `{
  "input": {
    "name": "demo",
    "instanceGroups": [
      { "name": "gpu", "instanceType": "ml.g5.12xlarge", "count": 2 }
    ]
  },
  "idempotencyKey": "playground-demo-1"
}
`,
  },
  {
    title: "Wait for an operation",
    description: "Block until the operation changes or ends (up to timeoutSeconds); call it again until it is terminal.",
    query: `# Answers when a phase changes state or the operation ends, or after
# timeoutSeconds. Repeat until status is SUCCEEDED, FAILED or CANCELLED.
query WaitOperation($id: ID!, $timeoutSeconds: Int) {
  waitOperation(id: $id, timeoutSeconds: $timeoutSeconds) {
    id
    kind
    status
    phases {
      name
      title
      status
      attempt
      message
      error {
        code
        message
        retryable
      }
    }
    error {
      code
      message
      retryable
    }
  }
}
`,
    variables: `{
  "id": "<the operation's id>",
  "timeoutSeconds": 30
}
`,
  },
  {
    title: "Events from a cursor",
    description: "A subscription over WebSocket: events after since (from the start when null), then live ones.",
    query: `# Runs over the WebSocket. Pass since = the eventCursor of a query (or
# the cursor of the last event you saw) to continue with no gap.
subscription Events($since: String, $filter: EventFilter) {
  events(since: $since, filter: $filter) {
    cursor
    time
    action
    target {
      kind
      id
      name
    }
    operation {
      id
      status
      phases {
        name
        status
      }
    }
    cluster {
      id
      name
      status
    }
  }
}
`,
    variables: `{
  "since": null,
  "filter": { "kinds": ["OPERATION", "CLUSTER"] }
}
`,
  },
  {
    title: "Me and tokens",
    description: "Who you are signed in as; the list of tokens needs the ADMIN role.",
    query: `# me works for every role; tokens needs ADMIN (others get FORBIDDEN).
query MeAndTokens {
  me {
    name
    role
    tokenId
    via
  }
  tokens {
    id
    name
    role
    createdAt
    lastUsedAt
    expiresAt
    active
  }
}
`,
  },
];
