// Package schemas compiles the JSON Schemas that flows carry (tool input
// and output, form questions) and validates values against them, turning
// failures into a flat list of field violations people can read.
package schemas
