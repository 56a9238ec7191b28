package check

// checkMore runs the checks of keys and values that the node-by-node
// checks above do not cover: the rules of the input and output schemas,
// sample and roots questions with nowhere to go when a client lacks
// them, and comparisons of a field with a value it can never hold.
func (c *checker) checkMore() {
	c.checkSchemaRules()
	c.checkUnavailable()
	c.checkEnumCompares()
}
