/*
 * yaml_to_json FILE: parses one YAML document with libyaml and prints it
 * as JSON on stdout (mappings as objects, sequences as arrays, every
 * scalar as a string; aliases are followed). A parse error, a duplicate
 * key, a non-scalar key or anything but exactly one document is an error
 * printed as "FILE:LINE:COL: problem" on stderr with exit status 1; a
 * usage error is status 2. The e2e tests use it to check CI files
 * (tests/e2e/ci_lib.sh compiles it with
 * `cc $(pkg-config --cflags --libs yaml-0.1 jansson)`).
 */
#include <stdio.h>
#include <string.h>

#include <jansson.h>
#include <yaml.h>

#define MAX_DEPTH 200

static const char *file;

static void fail_at(yaml_mark_t m, const char *what, const char *detail)
{
	fprintf(stderr, "%s:%lu:%lu: %s%s%s\n", file, (unsigned long)m.line + 1,
	        (unsigned long)m.column + 1, what, detail ? ": " : "",
	        detail ? detail : "");
}

static json_t *convert(yaml_document_t *doc, yaml_node_t *n, int depth);

static json_t *convert_mapping(yaml_document_t *doc, yaml_node_t *n, int depth)
{
	json_t *obj = json_object();

	for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
	     p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);
		yaml_node_t *v = yaml_document_get_node(doc, p->value);
		json_t *jv;

		if (!k || k->type != YAML_SCALAR_NODE) {
			fail_at(n->start_mark, "a key is not a scalar", NULL);
			goto bad;
		}
		if (json_object_getn(obj, (const char *)k->data.scalar.value,
		                     k->data.scalar.length)) {
			fail_at(k->start_mark, "duplicate key",
			        (const char *)k->data.scalar.value);
			goto bad;
		}
		if (!v || !(jv = convert(doc, v, depth + 1)))
			goto bad;
		json_object_setn_new(obj, (const char *)k->data.scalar.value,
		                     k->data.scalar.length, jv);
	}
	return obj;
bad:
	json_decref(obj);
	return NULL;
}

static json_t *convert(yaml_document_t *doc, yaml_node_t *n, int depth)
{
	json_t *arr;

	if (depth > MAX_DEPTH) {
		fail_at(n->start_mark, "nested too deeply (an alias cycle?)",
		        NULL);
		return NULL;
	}
	switch (n->type) {
	case YAML_SCALAR_NODE:
		return json_stringn((const char *)n->data.scalar.value,
		                    n->data.scalar.length);
	case YAML_SEQUENCE_NODE:
		arr = json_array();
		for (yaml_node_item_t *i = n->data.sequence.items.start;
		     i < n->data.sequence.items.top; i++) {
			yaml_node_t *item = yaml_document_get_node(doc, *i);
			json_t *j = item ? convert(doc, item, depth + 1) : NULL;

			if (!j) {
				json_decref(arr);
				return NULL;
			}
			json_array_append_new(arr, j);
		}
		return arr;
	case YAML_MAPPING_NODE:
		return convert_mapping(doc, n, depth);
	default:
		fail_at(n->start_mark, "an empty node", NULL);
		return NULL;
	}
}

/* Loads the only document of the stream; 0 or 1 (error printed). */
static int load(yaml_parser_t *parser, json_t **out)
{
	yaml_document_t doc, extra;
	yaml_node_t *root;
	int ret = 1;

	if (!yaml_parser_load(parser, &doc)) {
		fail_at(parser->problem_mark, parser->problem, parser->context);
		return 1;
	}
	root = yaml_document_get_root_node(&doc);
	if (!root) {
		fprintf(stderr, "%s: no YAML document\n", file);
		yaml_document_delete(&doc);
		return 1;
	}
	*out = convert(&doc, root, 0);
	yaml_document_delete(&doc);
	if (!*out)
		return 1;
	if (!yaml_parser_load(parser, &extra)) {
		fail_at(parser->problem_mark, parser->problem, parser->context);
	} else if (yaml_document_get_root_node(&extra)) {
		fail_at(extra.start_mark, "a second document", NULL);
		yaml_document_delete(&extra);
	} else {
		yaml_document_delete(&extra);
		ret = 0;
	}
	if (ret) {
		json_decref(*out);
		*out = NULL;
	}
	return ret;
}

int main(int argc, char **argv)
{
	yaml_parser_t parser;
	json_t *json = NULL;
	FILE *f;
	int ret;

	if (argc != 2) {
		fputs("usage: yaml_to_json FILE\n", stderr);
		return 2;
	}
	file = argv[1];
	if (!(f = fopen(file, "rb"))) {
		perror(file);
		return 1;
	}
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_file(&parser, f);
	ret = load(&parser, &json);
	yaml_parser_delete(&parser);
	fclose(f);
	if (!ret) {
		ret = json_dumpf(json, stdout, JSON_INDENT(2)) ? 1 : 0;
		putchar('\n');
	}
	json_decref(json);
	return ret;
}
