// `elenchos init --k8s`: an Indexed Job whose index i runs share i of the plan (`run --shard auto/<n>`,
// JOB_COMPLETION_INDEX) and writes its export to a shared volume; a Job that joins them; and the Dockerfile of
// the image both run (Node 20, git, Chromium, bubblewrap, the Elenchos pinned at init). Elenchos schedules
// nothing itself: Kubernetes runs the indexes, retries each once, and (with --stop-at-first) ends at the first win.
import type { AgentType } from '../../config/config-schema.js';
import { AGENT_INSTALLS } from './agent-install.js';
import type { InitVerifier } from './detect-project.js';
import type { PinnedElenchos } from './pinned-elenchos.js';

export const K8S_DIR = 'k8s';
export const K8S_SHARES_JOB = `${K8S_DIR}/elenchos-agents-job.yaml`;
export const K8S_JOIN_JOB = `${K8S_DIR}/elenchos-join-job.yaml`;
export const K8S_DOCKERFILE = `${K8S_DIR}/Dockerfile`;

/** Where the image keeps its pinned Elenchos: the commit under test never chooses which one runs. */
export const PINNED_BIN = '/opt/elenchos/node_modules/.bin/elenchos';

export interface K8sOptions {
  verifier: InitVerifier;
  agent: AgentType;
  /** Installs the project's dependencies in the clone (its app and verifier run in the pod). */
  install: string;
  pin: PinnedElenchos;
  /** Indexes of the Job: one share each. */
  shares: number;
  /** End the Job as soon as one index's share is VERIFIED (a successPolicy), the others stopped. */
  stopAtFirst: boolean;
  /** The task (or glob) the shares run by default; the user edits it per Job. */
  task: string;
}

// The clone every pod works in: the repository at the commit to work on, fetched by an init container.
const CLONE = `      initContainers:
        - name: clone
          image: elenchos-agents:latest
          command: ["/bin/sh", "-c"]
          args:
            - git clone --quiet "$REPO_URL" /workspace/repo && git -C /workspace/repo checkout --quiet --detach "$COMMIT"
          env:
            - name: REPO_URL
              value: "https://github.com/OWNER/REPO.git"
            - name: COMMIT
              value: "0000000000000000000000000000000000000000"
          volumeMounts:
            - name: repo
              mountPath: /workspace`;

const VOLUMES = `      volumes:
        - name: repo
          emptyDir: {}
        - name: exports
          persistentVolumeClaim:
            claimName: elenchos-exports`;

/** The Indexed Job: index i (0-based, JOB_COMPLETION_INDEX) runs share i+1 of n and exports it to the volume. */
export function renderSharesJob(options: K8sOptions): string {
  const key = AGENT_INSTALLS[options.agent].keyEnv;
  const keyEnv = key
    ? `
            - name: ${key}
              valueFrom:
                secretKeyRef:
                  name: elenchos-agent
                  key: ${key}`
    : '';
  // With --stop-at-first an index succeeds only when its share is VERIFIED (exit 0), which ends the Job; without
  // it, a share that ran and exported (0-2) has done its part, and the join weighs its candidates.
  const done = options.stopAtFirst ? 'exit "$code"' : 'if [ "$code" -le 2 ] && [ -f "$out" ]; then exit 0; fi; exit "$code"';
  const successPolicy = options.stopAtFirst
    ? `
  # --stop-at-first: the Job succeeds as soon as one index does (its share VERIFIED); the other pods are stopped.
  successPolicy:
    rules:
      - succeededCount: 1`
    : '';
  return `# Written by \`elenchos init --k8s\` (docs/scale.md#kubernetes). Each index runs one share of the plan (the
# tasks × their best-of candidates) with the Elenchos pinned in the image, and writes its export to the
# elenchos-exports volume; then run k8s/elenchos-join-job.yaml, which joins them and re-verifies there.
# Edit REPO_URL, COMMIT and TASK, build the image from k8s/Dockerfile, then: kubectl apply -f ${K8S_SHARES_JOB}
apiVersion: batch/v1
kind: Job
metadata:
  name: elenchos-agents
  labels:
    app.kubernetes.io/name: elenchos
    app.kubernetes.io/component: share
spec:
  completionMode: Indexed
  completions: ${options.shares}
  parallelism: ${options.shares}
  # Each index is tried again once (a lost node, an evicted pod), independently of the others.
  backoffLimitPerIndex: 1
  maxFailedIndexes: ${options.shares}
  podFailurePolicy:
    rules:
      # 1 FAILED, 2 ERROR, 3 bad input: the share ran (or can never run); running it again spends the agents again.
      - action: FailIndex
        onExitCodes:
          containerName: share
          operator: In
          values: [1, 2, 3]${successPolicy}
  ttlSecondsAfterFinished: 86400
  template:
    metadata:
      labels:
        app.kubernetes.io/name: elenchos
    spec:
      restartPolicy: Never
${CLONE}
      containers:
        - name: share
          image: elenchos-agents:latest
          workingDir: /workspace/repo
          command: ["/bin/bash", "-c"]
          args:
            - |
              set -u
              ${options.install}
              out="/exports/$JOB_NAME/share-$JOB_COMPLETION_INDEX.tar.gz"
              mkdir -p "/exports/$JOB_NAME"
              code=0
              # The pinned Elenchos of the image, by its path: never one the commit under test installs.
              ${PINNED_BIN} run "$TASK" --best-of "$BEST_OF" --shard auto/${options.shares} --export "$out" --json > "$out.json" || code=$?
              ${done}
          env:
            - name: JOB_NAME
              valueFrom:
                fieldRef:
                  fieldPath: metadata.labels['job-name']
            - name: TASK
              value: "${options.task}"
            - name: BEST_OF
              value: "2"${keyEnv}
          resources:
            requests:
              cpu: "2"
              memory: 4Gi
          volumeMounts:
            - name: repo
              mountPath: /workspace
            - name: exports
              mountPath: /exports
${VOLUMES}
`;
}

/** The join: one pod reading every export of one shares Job from the volume, re-verifying on its own. */
export function renderJoinJob(options: K8sOptions): string {
  return `# Written by \`elenchos init --k8s\` (docs/scale.md#kubernetes). Run it once the shares Job has ended
# (kubectl wait --for=condition=complete job/elenchos-agents, or =failed): it joins every export of that Job
# and re-verifies each task's best candidate in this pod. Its log and exit code are the verdict.
apiVersion: batch/v1
kind: Job
metadata:
  name: elenchos-join
  labels:
    app.kubernetes.io/name: elenchos
    app.kubernetes.io/component: join
spec:
  completions: 1
  backoffLimit: 0
  ttlSecondsAfterFinished: 86400
  template:
    metadata:
      labels:
        app.kubernetes.io/name: elenchos
    spec:
      restartPolicy: Never
${CLONE}
      containers:
        - name: join
          image: elenchos-agents:latest
          workingDir: /workspace/repo
          command: ["/bin/bash", "-c"]
          args:
            - |
              set -u
              ${options.install}
              ${PINNED_BIN} join /exports/"$SHARES_JOB"/share-*.tar.gz --json > /exports/"$SHARES_JOB"/join.json
          env:
            - name: SHARES_JOB
              value: elenchos-agents
          resources:
            requests:
              cpu: "2"
              memory: 4Gi
          volumeMounts:
            - name: repo
              mountPath: /workspace
            - name: exports
              mountPath: /exports
${VOLUMES}
`;
}

/** The image: Node 20, git, Chromium, bubblewrap, the verifier and agent CLIs, and Elenchos from its pin. */
export function renderDockerfile(options: K8sOptions): string {
  const agent = AGENT_INSTALLS[options.agent].npm;
  const verifier = options.verifier === 'kane' ? ' @testmuai/kane-cli' : '';
  const globals = `${agent ?? ''}${verifier}`.trim();
  return `# Written by \`elenchos init --k8s\` (docs/scale.md#kubernetes): the image the shares and the join run.
# Build it from the repository root: docker build -f ${K8S_DOCKERFILE} -t elenchos-agents:latest .
FROM node:20-bookworm-slim

# git for the clone and the worktrees, Chromium for the verifier, bubblewrap for agent.sandbox "bwrap".
RUN apt-get update \\
 && apt-get install -y --no-install-recommends git ca-certificates chromium bubblewrap \\
 && rm -rf /var/lib/apt/lists/*
ENV KANE_CLI_CHROME_PATH=/usr/bin/chromium \\
    PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH=/usr/bin/chromium
${globals ? `\n# The agent's and the verifier's CLIs.\nRUN npm install -g ${globals}\n` : ''}
# The Elenchos every pod runs, pinned by \`elenchos init\`: installed here, outside the repository, and called by
# its path (${PINNED_BIN}), so the commit under test cannot choose the Elenchos that judges it.
${renderImagePin(options.pin)}
USER node
`;
}

function renderImagePin(pin: PinnedElenchos): string {
  const npm = 'npm install --no-save --no-package-lock --no-audit --no-fund';
  switch (pin.kind) {
    case 'git':
      return `RUN mkdir -p /opt/elenchos && cd /opt/elenchos && ${npm} "${pin.spec}"`;
    case 'registry':
      return `RUN mkdir -p /opt/elenchos && cd /opt/elenchos && ${npm} --ignore-scripts "${pin.spec}"`;
    case 'tarball':
      return `COPY ${pin.path} /tmp/elenchos.tgz
RUN echo "${pin.sha256}  /tmp/elenchos.tgz" | sha256sum --check --strict - \\
 && mkdir -p /opt/elenchos && cd /opt/elenchos && ${npm} --ignore-scripts /tmp/elenchos.tgz && rm /tmp/elenchos.tgz`;
    case 'none':
      return `# No pin was found (package-lock.json or package.json): set one (a git URL with its commit, or a tarball
# and its sha256) and install it into /opt/elenchos as above. Until then the build fails here.
RUN echo "no pinned Elenchos: see docs/ci.md#the-pinned-elenchos" && exit 1`;
  }
}
