#include "config/cfg.h"

#include <stdio.h>
#include <yaml.h>

#include "benchfarm/alloc.h"
#include "benchfarm/argv.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "config/cfg_int.h"

/*
 * Reading a config: the file, libyaml's parser and its errors, the
 * depth and single-document checks; the schema (cfg_schema.c) then
 * fills the structs from the document.
 */

/* Byte offset of the index-th character (libyaml counts characters). */
static size_t char_offset(const char *text, size_t len, size_t index)
{
	size_t off = 0;

	for (size_t i = 0; i < index && off < len; i++) {
		off++;
		while (off < len && (text[off] & 0xc0) == 0x80)
			off++;
	}
	return off;
}

/* Line and column (0-based, in characters) of a byte offset. */
static yaml_mark_t offset_mark(const char *text, size_t len, size_t offset)
{
	yaml_mark_t m = { 0, 0, 0 };

	for (size_t i = 0; i < offset && i < len; i++) {
		if (text[i] == '\n') {
			m.line++;
			m.column = 0;
		} else if ((text[i] & 0xc0) != 0x80) {
			m.column++;
		}
	}
	m.index = offset;
	return m;
}

/* Translate a libyaml failure into "FILE:LINE:COL: problem". */
static int parser_error(const yaml_parser_t *p, const char *name,
                        const char *text, size_t len, struct bf_err *err)
{
	yaml_mark_t m = p->problem_mark;
	const char *problem = p->problem ? p->problem : "invalid YAML";
	size_t at;

	if (p->error == YAML_MEMORY_ERROR)
		return bf_err_set(err, BF_ERROR,
		                  "%s: out of memory while parsing YAML", name);
	if (p->error == YAML_READER_ERROR) {
		m = offset_mark(text, len, p->problem_offset);
		return bf_err_set(
		        err, BF_EINVAL,
		        "%s:%zu:%zu: %s (byte 0x%02x); configs must be UTF-8 text",
		        name, m.line + 1, m.column + 1, problem,
		        (unsigned)p->problem_value & 0xffu);
	}
	at = char_offset(text, len, m.index);
	if (p->error == YAML_SCANNER_ERROR && at < len && text[at] == '\t')
		return bf_err_set(
		        err, BF_EINVAL,
		        "%s:%zu:%zu: tab character used for indentation (indent with spaces)",
		        name, m.line + 1, m.column + 1);
	if (p->context)
		return bf_err_set(err, BF_EINVAL,
		                  "%s:%zu:%zu: %s (%s that started at %zu:%zu)",
		                  name, m.line + 1, m.column + 1, problem,
		                  p->context, p->context_mark.line + 1,
		                  p->context_mark.column + 1);
	return bf_err_set(err, BF_EINVAL, "%s:%zu:%zu: %s", name, m.line + 1,
	                  m.column + 1, problem);
}

/* Fail if the stream holds a second document after the first. */
static int check_single_doc(yaml_parser_t *p, struct bf_cfg__ld *ld,
                            const char *text, size_t len)
{
	yaml_document_t doc;
	yaml_node_t *root;
	int ret = 0;

	if (!yaml_parser_load(p, &doc))
		return parser_error(p, ld->name, text, len, ld->err);
	root = yaml_document_get_root_node(&doc);
	if (root)
		ret = bf_err_set(
		        ld->err, BF_EINVAL,
		        "%s:%zu:%zu: a config holds one YAML document; found a second one",
		        ld->name, doc.start_mark.line + 1,
		        doc.start_mark.column + 1);
	yaml_document_delete(&doc);
	return ret;
}

/*
 * Refuse nesting deeper than BF_CFG_MAX_DEPTH, reading events only up to
 * the first too deep: a config nested 262,000 levels took libyaml 103 s
 * of CPU to load. A syntax error ends the scan quietly; the load that
 * follows reports it.
 */
static int check_depth(const char *name, const char *text, size_t len,
                       struct bf_err *err)
{
	yaml_parser_t p;
	yaml_event_t ev;
	int depth = 0, ret = 0;
	bool end = false;

	if (!yaml_parser_initialize(&p))
		return bf_err_set(err, BF_ERROR,
		                  "%s: cannot initialise the YAML parser",
		                  name);
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	while (!ret && !end && yaml_parser_parse(&p, &ev)) {
		if (ev.type == YAML_MAPPING_START_EVENT ||
		    ev.type == YAML_SEQUENCE_START_EVENT) {
			if (++depth > BF_CFG_MAX_DEPTH)
				ret = bf_err_set(
				        err, BF_EINVAL,
				        "%s:%zu:%zu: nested more than %d levels "
				        "deep; a config needs no more than a "
				        "few, so flatten it",
				        name, ev.start_mark.line + 1,
				        ev.start_mark.column + 1,
				        BF_CFG_MAX_DEPTH);
		} else if (ev.type == YAML_MAPPING_END_EVENT ||
		           ev.type == YAML_SEQUENCE_END_EVENT) {
			depth--;
		}
		end = ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	return ret;
}

static int load_doc(yaml_parser_t *p, const char *text, size_t len,
                    struct bf_cfg__ld *ld, struct bf_cfg *cfg)
{
	yaml_node_t *root = yaml_document_get_root_node(ld->doc);
	int ret;

	if (!root)
		return bf_err_set(
		        ld->err, BF_EINVAL,
		        "%s:1:1: config is empty (expected at least 'version', 'project' and 'benchmarks')",
		        ld->name);
	ret = check_single_doc(p, ld, text, len);
	if (ret)
		return ret;
	return bf_cfg__load_root(ld, root, cfg);
}

static int load_string(struct bf_cfg *cfg, const char *name, const char *text,
                       size_t len, struct bf_argv *all, struct bf_err *err)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	struct bf_cfg__ld ld = { &doc, name, err, all, 0 };
	int ret;

	bf_cfg_init(cfg);
	cfg->path = bf_xstrdup(name);
	if (!yaml_parser_initialize(&parser)) {
		ret = bf_err_set(err, BF_ERROR,
		                 "%s: cannot initialise the YAML parser", name);
		goto out;
	}
	if ((ret = check_depth(name, text, len, err)))
		goto out_parser;
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		ret = parser_error(&parser, name, text, len, err);
		goto out_parser;
	}
	ret = load_doc(&parser, text, len, &ld, cfg);
	yaml_document_delete(&doc);
out_parser:
	yaml_parser_delete(&parser);
out:
	if (ret)
		bf_cfg_release(cfg);
	/* an error found before the walk (YAML syntax, the file) is the one */
	if (ret && all && !all->argc && err)
		bf_argv_push(all, err->msg);
	return ret;
}

int bf_cfg_load_string(struct bf_cfg *cfg, const char *name, const char *text,
                       size_t len, struct bf_err *err)
{
	return load_string(cfg, name, text, len, NULL, err);
}

int bf_cfg_load(struct bf_cfg *cfg, const char *path, struct bf_err *err)
{
	return bf_cfg_load_all(cfg, path, NULL, err);
}

int bf_cfg_load_all(struct bf_cfg *cfg, const char *path, struct bf_argv *all,
                    struct bf_err *err)
{
	struct bf_buf text = BF_BUF_INIT;
	int ret;

	bf_buf_init(&text, BF_CFG_MAX_FILE_SIZE);
	ret = bf_buf_read_file(&text, path, err);
	if (ret) {
		bf_cfg_init(cfg);
		bf_cfg_release(cfg);
		if (all && err)
			bf_argv_push(all, err->msg);
		goto out;
	}
	ret = load_string(cfg, path, text.buf, text.len, all, err);
out:
	bf_buf_release(&text);
	return ret;
}
