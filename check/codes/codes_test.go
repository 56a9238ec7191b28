package codes_test

import (
	"go/ast"
	goparser "go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/internal/golden"
)

// The packages that report diagnostics with codes of their own declare
// them in a codes.go each: this one (every code of flow files), resources
// and flowtest. The tests here
// read those files as source, so that one reader checks every namespace
// against its documentation and every package that reports diagnostics
// for literals.

// namespaces are the directories, relative to this one, whose codes.go
// declares the codes of their package's diagnostics.
var namespaces = []string{".", "../../resources", "../../flowtest"}

// reporters are the directories whose Go files report or test
// diagnostics: none of them writes a code as a literal.
var reporters = []string{"..", "../../dsl", "../../resources", "../../flowtest", "../../project", "../../flow", "../../diff"}

// codeConst is a constant of a codes.go file.
type codeConst struct {
	name, value, doc string
	block            int // the const block of the file declaring it, from 0
	pos              token.Position
}

// readCodes returns the constants of dir's codes.go, in order, each
// value resolved through the constants of this module it is defined as.
func readCodes(t *testing.T, dir string) []codeConst {
	t.Helper()
	fset := token.NewFileSet()
	f, err := goparser.ParseFile(fset, filepath.Join(dir, "codes.go"), nil, goparser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var out []codeConst
	block := 0
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if ok && gd.Tok == token.IMPORT {
			continue
		}
		if !ok || gd.Tok != token.CONST {
			t.Errorf("%s: codes.go declares only code constants", fset.Position(decl.Pos()))
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			pos := fset.Position(vs.Pos())
			if len(vs.Names) != 1 || len(vs.Values) != 1 || vs.Type != nil {
				t.Errorf("%s: declare one untyped code a line", pos)
				continue
			}
			out = append(out, codeConst{
				name:  vs.Names[0].Name,
				value: constValue(t, fset, f, vs.Values[0]),
				doc:   vs.Doc.Text(),
				block: block,
				pos:   pos,
			})
		}
		block++
	}
	if len(out) == 0 {
		t.Fatalf("%s/codes.go declares no codes", dir)
	}
	return out
}

// constValue returns the value of e, the definition of a code in f: a
// string literal or a constant of another package of this module
// (yamlx.CodeBadYAML).
func constValue(t *testing.T, fset *token.FileSet, f *ast.File, e ast.Expr) string {
	t.Helper()
	switch e := e.(type) {
	case *ast.BasicLit:
		if s, err := strconv.Unquote(e.Value); err == nil && e.Kind == token.STRING {
			return s
		}
	case *ast.SelectorExpr:
		if pkg, ok := e.X.(*ast.Ident); ok {
			if dir, ok := importDir(t, f, pkg.Name); ok {
				return lookupConst(t, dir, e.Sel.Name)
			}
		}
	}
	t.Errorf("%s: a code is a string literal or a code constant of another package", fset.Position(e.Pos()))
	return ""
}

// importDir returns the directory, relative to this one, of the package
// of this module that f imports under name.
func importDir(t *testing.T, f *ast.File, name string) (string, bool) {
	t.Helper()
	mod := modulePath(t)
	for _, imp := range f.Imports {
		path, err := strconv.Unquote(imp.Path.Value)
		if err != nil || !strings.HasPrefix(path, mod+"/") {
			continue
		}
		as := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			as = imp.Name.Name
		}
		if as == name {
			return filepath.Join("..", "..", filepath.FromSlash(strings.TrimPrefix(path, mod+"/"))), true
		}
	}
	return "", false
}

// lookupConst returns the value of the constant name declared in the Go
// files of dir (tests aside).
func lookupConst(t *testing.T, dir, name string) string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := goparser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if n.Name == name && i < len(vs.Values) {
						return constValue(t, fset, f, vs.Values[i])
					}
				}
			}
		}
	}
	t.Errorf("no constant %s in %s", name, dir)
	return ""
}

// modulePath returns the module path go.mod declares.
func modulePath(t *testing.T) string {
	t.Helper()
	mod, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^module\s+(\S+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod has no module line")
	}
	return string(m[1])
}

// constName returns the name of the constant of code in the namespace
// dir: its words, capitalised, with initialisms in capitals, after "Code"
// in the namespaces of other packages (BadURL here, CodeBadURITemplate in
// resources), where the package name does not say it is a code.
func constName(dir, code string) string {
	var b strings.Builder
	if dir != "." {
		b.WriteString("Code")
	}
	for _, w := range strings.Split(code, "-") {
		switch w {
		case "id", "uri", "url", "yaml":
			b.WriteString(strings.ToUpper(w))
		default:
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}

var codePattern = regexp.MustCompile(`^[a-z]+(-[a-z]+)*$`)

// TestCodeConstants checks each namespace's constants: every one is
// named after its code and has a doc comment that is a sentence saying
// what it means, and no two have the same code.
func TestCodeConstants(t *testing.T) {
	for _, dir := range namespaces {
		seen := map[string]string{}
		for _, c := range readCodes(t, dir) {
			if !codePattern.MatchString(c.value) {
				t.Errorf("%s: %s is %q, not a kebab-case code", c.pos, c.name, c.value)
				continue
			}
			if want := constName(dir, c.value); c.name != want {
				t.Errorf("%s: %s is the constant of %s; name it %s", c.pos, c.name, c.value, want)
			}
			if !strings.HasPrefix(c.doc, c.name+" means ") || !strings.HasSuffix(c.doc, ".\n") {
				t.Errorf("%s: %s needs a doc comment %q", c.pos, c.name, c.name+" means ….")
			}
			if prev, dup := seen[c.value]; dup {
				t.Errorf("%s: %s and %s are both %s", c.pos, prev, c.name, c.value)
			}
			seen[c.value] = c.name
		}
	}
}

// blockCodes returns the codes of the constants of block.
func blockCodes(cs []codeConst, block int) []string {
	var out []string
	for _, c := range cs {
		if c.block == block {
			out = append(out, c.value)
		}
	}
	return out
}

// sameCodes reports the codes only one of consts and documented has.
func sameCodes(t *testing.T, what string, consts, documented []string) {
	t.Helper()
	for _, c := range consts {
		if !slices.Contains(documented, c) {
			t.Errorf("%s: %s is a constant but not documented", what, c)
		}
	}
	for _, c := range documented {
		if !slices.Contains(consts, c) {
			t.Errorf("%s: %s is documented but not a constant", what, c)
		}
	}
}

// TestCodesDocumented checks that the codes each package documents are
// its constants and the other way round: dsl's Parse and Check lists are
// the first two blocks of its codes.go, the third block is named in the
// paragraph on check.Types and project.Load, and resources' list is its
// constants. flowtest lists no codes: every code its goldens show for a
// test file must be one of its constants.
func TestCodesDocumented(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	cs := readCodes(t, ".")
	text := string(doc)
	i := strings.Index(text, "// check.File reports")
	if i < 0 {
		t.Fatal("doc.go has no paragraph on check.File")
	}
	sameCodes(t, "Parse", blockCodes(cs, 0), golden.DocumentedCodes(t, doc[:i], 20))
	sameCodes(t, "Check", blockCodes(cs, 1), golden.DocumentedCodes(t, doc[i:], 25))

	// The other stages' codes are named in a paragraph, each followed by
	// its meaning in parentheses.
	j := strings.Index(text, "// check.Types adds")
	if j < 0 {
		t.Fatal("doc.go has no paragraph on check.Types' codes")
	}
	para := text[j:]
	para = para[:strings.Index(para, "\n//\n")]
	para = strings.Join(strings.Fields(strings.ReplaceAll(para, "//", "")), " ")
	for _, c := range blockCodes(cs, 2) {
		if !regexp.MustCompile(`(^|[^a-z-])` + regexp.QuoteMeta(c) + ` \(`).MatchString(para) {
			t.Errorf("doc.go does not say what %s means in the paragraph on check.Types", c)
		}
	}
	var all []string
	for _, c := range cs {
		all = append(all, c.value)
	}
	for _, w := range regexp.MustCompile(`[a-z]+(?:-[a-z]+)+`).FindAllString(para, -1) {
		if !slices.Contains(all, w) {
			t.Errorf("doc.go names %s in the paragraph on check.Types, and it is not a constant", w)
		}
	}

	rdoc, err := os.ReadFile(filepath.Join("..", "..", "resources", "doc.go"))
	if err != nil {
		t.Fatal(err)
	}
	sameCodes(t, "resources", blockCodes(readCodes(t, "../../resources"), 0), golden.DocumentedCodes(t, rdoc, 15))

	var flowtest []string
	for _, c := range readCodes(t, "../../flowtest") {
		flowtest = append(flowtest, c.value)
	}
	goldens, err := filepath.Glob(filepath.Join("..", "..", "flowtest", "testdata", "golden", "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^\S+_test\.yaml:\d+:\d+: (?:error|warning): .* \[([a-z-]+)\]$`)
	n := 0
	for _, file := range goldens {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range line.FindAllStringSubmatch(string(src), -1) {
			n++
			if !slices.Contains(flowtest, m[1]) {
				t.Errorf("%s reports %s for a test file, and it is not a flowtest constant", file, m[1])
			}
		}
	}
	if n < 10 {
		t.Errorf("found only %d test-file diagnostics in flowtest's goldens", n)
	}
}

// TestNoCodeLiterals checks that the packages reporting diagnostics, and
// their tests, write every code as its constant: a string literal equal
// to a code is one only codes.go may hold.
func TestNoCodeLiterals(t *testing.T) {
	codes := map[string]string{}
	for _, dir := range namespaces {
		for _, c := range readCodes(t, dir) {
			codes[c.value] = c.name
		}
	}
	fset := token.NewFileSet()
	for _, dir := range reporters {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no Go files in %s: %v", dir, err)
		}
		for _, file := range files {
			if filepath.Base(file) == "codes.go" {
				continue
			}
			f, err := goparser.ParseFile(fset, file, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil && codes[s] != "" {
						t.Errorf("%s: the code %q is a literal; write its constant (%s)", fset.Position(lit.Pos()), s, codes[s])
					}
				}
				return true
			})
		}
	}
}
