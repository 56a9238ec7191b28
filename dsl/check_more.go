package dsl

// checkMore runs the checks of keys and values that the node-by-node
// checks above do not cover: the rules of the input and output schemas,
// and sample and roots questions with nowhere to go when a client lacks
// them.
func (c *checker) checkMore() {
	c.checkSchemaRules()
	c.checkUnavailable()
}
