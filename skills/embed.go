// Package skills holds the agent playbooks and the Kiro CLI agent
// configuration (hypd-inst-agent.json) that teach an AI agent to drive
// InstantStart through its MCP tools.
//
// A playbook is a markdown file with YAML front matter (name, description,
// when_to_use, tools). README.md is the human guide to connecting an agent,
// not a playbook. The files are embedded so that the server can offer the
// playbooks as MCP resources; skills_test.go checks that every tool a
// playbook names exists in the GraphQL schema.
package skills

import "embed"

// FS holds the playbooks, README.md and hypd-inst-agent.json.
//
//go:embed *.md hypd-inst-agent.json
var FS embed.FS
