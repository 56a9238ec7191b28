// Command flowserve serves, checks, tests and draws flows: MCP tools
// written as YAML. Run `flowserve help` for its commands.
//
// A custom build with more actions is a copy of this file that also
// blank-imports the package registering them; see examples/custom-actions.
package main

import "github.com/flowserve/flowserve/cli"

func main() { cli.Main() }
