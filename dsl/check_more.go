package dsl

// checkMore runs the checks of keys and values that the node-by-node
// checks above do not cover.
func (c *checker) checkMore() {}
