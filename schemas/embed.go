package schemas

import (
	_ "embed"
	"slices"
)

// FlowSchemaID is the $id of the flow-file schema.
const FlowSchemaID = "https://flowserve.dev/schemas/flow.schema.json"

//go:embed flow.schema.json
var flowSchema []byte

// FlowSchema returns the JSON Schema (draft 2020-12) of flow files, the
// bytes of schemas/flow.schema.json, for editors (`flowserve schema`). It
// describes the structure Parse accepts, plus the MCP rules lint enforces on
// form properties and content blocks; it cannot check node references,
// duplicate ids or expressions. The result is a copy the caller may modify.
func FlowSchema() []byte { return slices.Clone(flowSchema) }

// ResourcesSchemaID is the $id of the resource-declaration schema.
const ResourcesSchemaID = "https://flowserve.dev/schemas/resources.schema.json"

//go:embed resources.schema.json
var resourcesSchema []byte

// ResourcesSchema returns the JSON Schema (draft 2020-12) of resource
// declaration files (resources.yaml, *.resources.yaml), the bytes of
// schemas/resources.schema.json, for editors (`flowserve schema
// --resources`). It describes the structure resources.Parse accepts; it
// cannot check template variables, files or uniqueness. The result is a
// copy the caller may modify.
func ResourcesSchema() []byte { return slices.Clone(resourcesSchema) }
