# One cmocka binary per module; <test>_OBJS lists the objects it needs
# beyond libbfcore.a.
UNIT_TESTS += tests/unit/core/test_core
UNIT_TESTS += tests/unit/spawn/test_spawn
UNIT_TESTS += tests/unit/cfg/test_cfg
tests/unit/cfg/test_cfg_OBJS := $(CFG_ALONE_OBJS) tests/unit/cfg/expect.o
UNIT_TESTS += tests/unit/cfg/test_cfg_json
tests/unit/cfg/test_cfg_json_OBJS := $(CFG_ALONE_OBJS) tests/unit/cfg/expect.o
UNIT_TESTS += tests/unit/cfg/test_cfg_keys
tests/unit/cfg/test_cfg_keys_OBJS := $(CFG_ALONE_OBJS) tests/unit/cfg/expect.o
UNIT_TESTS += tests/unit/cfg/test_cfg_runs
tests/unit/cfg/test_cfg_runs_OBJS := $(CFG_ALONE_OBJS) tests/unit/cfg/expect.o
UNIT_TESTS += tests/unit/store/test_store_location
tests/unit/store/test_store_location_OBJS := $(STORE_OBJS)
UNIT_TESTS += tests/unit/store/test_store_schema
tests/unit/store/test_store_schema_OBJS := $(STORE_OBJS) tests/unit/store/store_fixture.o
UNIT_TESTS += tests/unit/store/test_store_device
tests/unit/store/test_store_device_OBJS := $(STORE_OBJS) tests/unit/store/store_fixture.o
UNIT_TESTS += tests/unit/store/test_store_run
tests/unit/store/test_store_run_OBJS := $(STORE_OBJS) tests/unit/store/store_fixture.o
UNIT_TESTS += tests/unit/store/test_store_run_build
tests/unit/store/test_store_run_build_OBJS := $(STORE_OBJS) tests/unit/store/store_fixture.o
UNIT_TESTS += tests/unit/store/test_store_alert
tests/unit/store/test_store_alert_OBJS := $(STORE_OBJS) tests/unit/store/store_fixture.o
UNIT_TESTS += tests/unit/store/test_store_sql
tests/unit/store/test_store_sql_OBJS := $(STORE_OBJS) tests/unit/store/store_fixture.o
UNIT_TESTS += tests/unit/store/test_store_lease
tests/unit/store/test_store_lease_OBJS := $(STORE_OBJS) tests/unit/store/store_fixture.o
UNIT_TESTS += tests/unit/store/test_store_live
tests/unit/store/test_store_live_OBJS := $(STORE_OBJS) tests/unit/store/store_fixture.o
UNIT_TESTS += tests/unit/store/test_store_sample
tests/unit/store/test_store_sample_OBJS := $(STORE_OBJS) tests/unit/store/store_fixture.o
# A store test again with its store on PostgreSQL: $(eval $(call
# store_on_pg,NAME)) builds NAME_pg from NAME.c and the fixture, both
# compiled with BF_STORE_FIXTURE_PG (store_fixture.h).
define store_on_pg
UNIT_TESTS += tests/unit/store/$(1)_pg
tests/unit/store/$(1)_pg_OBJS := $$(STORE_OBJS) tests/unit/store/store_fixture_pg.o
endef
$(B)/tests/unit/store/%_pg.o: tests/unit/store/%.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(ALL_CFLAGS) -DBF_STORE_FIXTURE_PG -c -o $@ $<
$(eval $(call store_on_pg,test_store_sql))
$(eval $(call store_on_pg,test_store_lease))
$(eval $(call store_on_pg,test_store_live))
$(eval $(call store_on_pg,test_store_device))
$(eval $(call store_on_pg,test_store_run))
$(eval $(call store_on_pg,test_store_alert))
$(eval $(call store_on_pg,test_store_copy))
$(eval $(call store_on_pg,test_store_sample))
UNIT_TESTS += tests/unit/store/test_store_postgres
tests/unit/store/test_store_postgres_OBJS := $(STORE_OBJS) tests/unit/store/store_fixture_pg.o
UNIT_TESTS += tests/unit/job/test_heartbeat
tests/unit/job/test_heartbeat_OBJS := orchestrator/job/heartbeat.o $(STORE_OBJS) tests/unit/store/store_fixture.o
UNIT_TESTS += tests/unit/store/test_store_pg_locks
tests/unit/store/test_store_pg_locks_OBJS := $(STORE_OBJS) tests/unit/store/store_fixture_pg.o
UNIT_TESTS += tests/unit/store/test_store_pg_reconnect
tests/unit/store/test_store_pg_reconnect_OBJS := $(STORE_OBJS) tests/unit/store/store_fixture_pg.o
UNIT_TESTS += tests/unit/store/test_store_pg_migrate
tests/unit/store/test_store_pg_migrate_OBJS := $(STORE_OBJS) tests/unit/store/store_fixture_pg.o
UNIT_TESTS += tests/unit/store/test_store_copy
tests/unit/store/test_store_copy_OBJS := $(STORE_OBJS) tests/unit/store/store_fixture.o
UNIT_TESTS += tests/unit/store/test_store_copy_hostile
tests/unit/store/test_store_copy_hostile_OBJS := $(STORE_OBJS) tests/unit/store/store_fixture.o
$(eval $(call store_on_pg,test_store_copy_hostile))
UNIT_TESTS += tests/unit/commands/test_commands
tests/unit/commands/test_commands_OBJS = $(ORCH_OBJS) $(PLUGIN_OBJS) $(AGENT_OBJS)
UNIT_TESTS += tests/unit/stats/test_stats
UNIT_TESTS += tests/unit/stats/test_stats_verdict
UNIT_TESTS += tests/unit/stats/test_stats_seq
UNIT_TESTS += tests/unit/stats/test_stats_paired
UNIT_TESTS += tests/unit/detect_stepfit/test_detect_jetpack
UNIT_TESTS += tests/unit/detect_pooled/test_detect_pooled
UNIT_TESTS += tests/unit/detect_corpus/test_detect_corpus
tests/unit/detect_corpus/test_detect_corpus_OBJS := tests/unit/detect_corpus/corpus.o
UNIT_TESTS += tests/unit/detect_stepfit/test_detect_skia
UNIT_TESTS += tests/unit/detect_stepfit/test_detect_skia_published
UNIT_TESTS += tests/unit/parse/test_parse
tests/unit/parse/test_parse_OBJS := agent/parse/parse.o agent/parse/parse_util.o agent/parse/parse_gbench.o agent/parse/parse_lines.o agent/parse/parse_jetpack.o agent/parse/parse_hyperfine.o agent/parse/parse_native.o tests/unit/parse/parse_helpers.o
UNIT_TESTS += tests/unit/parse/test_parse_gbench
tests/unit/parse/test_parse_gbench_OBJS := $(tests/unit/parse/test_parse_OBJS)
UNIT_TESTS += tests/unit/parse/test_parse_lines
tests/unit/parse/test_parse_lines_OBJS := $(tests/unit/parse/test_parse_OBJS)
UNIT_TESTS += tests/unit/parse/test_parse_hyperfine
tests/unit/parse/test_parse_hyperfine_OBJS := $(tests/unit/parse/test_parse_OBJS)
UNIT_TESTS += tests/unit/parse/test_parse_native
tests/unit/parse/test_parse_native_OBJS := $(tests/unit/parse/test_parse_OBJS)
UNIT_TESTS += tests/unit/gitrepo/test_gitrepo
tests/unit/gitrepo/test_gitrepo_OBJS := orchestrator/git/gitrepo.o orchestrator/git/gitrepo_export.o tests/unit/gitrepo/repo.o
UNIT_TESTS += tests/unit/gitrepo/test_gitrepo_export
tests/unit/gitrepo/test_gitrepo_export_OBJS := $(tests/unit/gitrepo/test_gitrepo_OBJS)
UNIT_TESTS += tests/unit/proto/test_proto
UNIT_TESTS += tests/unit/plan/test_plan
tests/unit/plan/test_plan_OBJS := orchestrator/job/plan.o
UNIT_TESTS += tests/unit/plan/test_plan_runs
tests/unit/plan/test_plan_runs_OBJS := orchestrator/job/plan.o
UNIT_TESTS += tests/unit/fs/test_fs
UNIT_TESTS += tests/unit/compare/test_compare
tests/unit/compare/test_compare_OBJS := orchestrator/job/compare.o orchestrator/job/compare_seq.o orchestrator/job/plan.o $(CFG_ALONE_OBJS)
UNIT_TESTS += tests/unit/parse/test_parse_jetpack
tests/unit/parse/test_parse_jetpack_OBJS := $(tests/unit/parse/test_parse_OBJS)
UNIT_TESTS += tests/unit/compare/test_compare_judge
tests/unit/compare/test_compare_judge_OBJS := $(tests/unit/compare/test_compare_OBJS)
UNIT_TESTS += tests/unit/compare/test_compare_seq
tests/unit/compare/test_compare_seq_OBJS := $(tests/unit/compare/test_compare_OBJS)
UNIT_TESTS += tests/unit/android/test_android
tests/unit/android/test_android_OBJS := agent/probe/devfs.o agent/probe/devfs_adb.o agent/probe/probe_android.o agent/android_run.o agent/parse/parse.o agent/parse/parse_util.o agent/parse/parse_gbench.o agent/parse/parse_lines.o agent/parse/parse_jetpack.o agent/parse/parse_hyperfine.o agent/parse/parse_native.o tests/unit/android/adb_standin.o
UNIT_TESTS += tests/unit/android/test_android_run
tests/unit/android/test_android_run_OBJS := $(tests/unit/android/test_android_OBJS)
UNIT_TESTS += tests/unit/cpuusage/test_cpuusage
tests/unit/cpuusage/test_cpuusage_OBJS = $(AGENT_OBJS)
UNIT_TESTS += tests/unit/probe/test_probe
tests/unit/probe/test_probe_OBJS := agent/probe/probe.o agent/probe/probe_read.o agent/probe/probe_sys.o agent/probe/probe_cpu.o agent/probe/probe_thermal.o agent/probe/probe_power.o agent/probe/devfs.o agent/probe/devfs_adb.o agent/probe/probe_android.o agent/info.o agent/check/check_eval.o agent/check/check_item.o agent/check/check_clocks.o tests/unit/probe/tmptree.o
UNIT_TESTS += tests/unit/check/test_check
tests/unit/check/test_check_OBJS := agent/check/check.o agent/check/check_eval.o agent/check/check_item.o agent/check/check_clocks.o agent/check/throttle.o agent/probe/probe.o agent/probe/probe_read.o agent/probe/probe_sys.o agent/probe/probe_cpu.o agent/probe/probe_thermal.o agent/probe/probe_power.o agent/probe/devfs.o agent/probe/devfs_adb.o agent/probe/probe_android.o tests/unit/probe/tmptree.o
UNIT_TESTS += tests/unit/clocks/test_clocks
tests/unit/clocks/test_clocks_OBJS = $(AGENT_OBJS) tests/unit/clocks/clocks_tree.o
UNIT_TESTS += tests/unit/check/test_check_run
tests/unit/check/test_check_run_OBJS := $(tests/unit/check/test_check_OBJS)
UNIT_TESTS += tests/unit/check/test_throttle
tests/unit/check/test_throttle_OBJS := $(tests/unit/check/test_check_OBJS)
UNIT_TESTS += tests/unit/sha256/test_sha256
UNIT_TESTS += tests/unit/devcheck/test_devcheck
tests/unit/devcheck/test_devcheck_OBJS := orchestrator/farm/devcheck.o orchestrator/farm/agentconn.o orchestrator/farm/transport_local.o $(STORE_OBJS)
UNIT_TESTS += tests/unit/machine/test_machine
tests/unit/machine/test_machine_OBJS := orchestrator/farm/machine.o
UNIT_TESTS += tests/unit/ssh/test_ssh
tests/unit/ssh/test_ssh_OBJS := orchestrator/farm/ssh_session.o orchestrator/farm/ssh.o orchestrator/farm/ssh_known.o orchestrator/farm/ssh_channel.o orchestrator/farm/ssh_sftp.o orchestrator/farm/agentconn.o tests/unit/ssh/fixture.o
UNIT_TESTS += tests/unit/ssh/test_ssh_channel
tests/unit/ssh/test_ssh_channel_OBJS := $(tests/unit/ssh/test_ssh_OBJS)
UNIT_TESTS += tests/unit/ssh/test_ssh_sftp
tests/unit/ssh/test_ssh_sftp_OBJS := $(tests/unit/ssh/test_ssh_OBJS)
UNIT_TESTS += tests/unit/detect_ttest/test_detect_perfherder
UNIT_TESTS += tests/unit/detect_ttest/test_detect_edivisive
UNIT_TESTS += tests/unit/report_core/test_report_core
tests/unit/report_core/test_report_core_OBJS := plugins/report_json.o plugins/report_exec.o core/src/report_run.o tests/mocks/host_mock.o
UNIT_TESTS += tests/unit/report_review/test_report_review
tests/unit/report_review/test_report_review_OBJS := plugins/report_github.o plugins/report_github_check.o plugins/report_github_commands.o plugins/report_gitlab.o plugins/report_markdown.o plugins/report_markdown_table.o plugins/report_markdown_text.o plugins/report_util.o core/src/report_run.o tests/mocks/host_mock.o tests/mocks/report_fixture.o tests/unit/report_review/review_fixture.o
UNIT_TESTS += tests/unit/report_review/test_report_github_annotations
tests/unit/report_review/test_report_github_annotations_OBJS := plugins/report_github.o plugins/report_github_check.o plugins/report_github_commands.o plugins/report_gitlab.o plugins/report_markdown.o plugins/report_markdown_table.o plugins/report_markdown_text.o plugins/report_util.o core/src/report_run.o tests/mocks/host_mock.o tests/mocks/report_fixture.o tests/unit/report_review/review_fixture.o
UNIT_TESTS += tests/unit/report_review/test_report_gitlab
tests/unit/report_review/test_report_gitlab_OBJS := plugins/report_gitlab.o plugins/report_markdown.o plugins/report_markdown_table.o plugins/report_markdown_text.o plugins/report_util.o core/src/report_run.o tests/mocks/host_mock.o tests/mocks/report_fixture.o tests/unit/report_review/review_fixture.o
UNIT_TESTS += tests/unit/report_export/test_report_export
tests/unit/report_export/test_report_export_OBJS := plugins/report_junit.o plugins/report_skia_perf.o plugins/report_bmf.o plugins/report_util.o core/src/report_run.o tests/mocks/host_mock.o tests/mocks/report_fixture.o
UNIT_TESTS += tests/unit/report_export/test_report_junit
tests/unit/report_export/test_report_junit_OBJS := plugins/report_junit.o plugins/report_util.o core/src/report_run.o tests/mocks/host_mock.o tests/mocks/report_fixture.o
UNIT_TESTS += tests/unit/report_gerrit/test_report_gerrit
tests/unit/report_gerrit/test_report_gerrit_OBJS := plugins/report_gerrit.o plugins/report_gerrit_message.o plugins/report_gerrit_server.o plugins/report_util.o core/src/report_run.o tests/mocks/host_mock.o tests/mocks/report_fixture.o tests/unit/report_gerrit/gerrit_fixture.o
UNIT_TESTS += tests/unit/report_gerrit/test_report_gerrit_post
tests/unit/report_gerrit/test_report_gerrit_post_OBJS := plugins/report_gerrit.o plugins/report_gerrit_message.o plugins/report_gerrit_server.o plugins/report_util.o core/src/report_run.o tests/mocks/host_mock.o tests/mocks/report_fixture.o tests/unit/report_gerrit/gerrit_fixture.o
UNIT_TESTS += tests/unit/report_markdown/test_report_markdown
tests/unit/report_markdown/test_report_markdown_OBJS := plugins/report_markdown.o plugins/report_markdown_table.o plugins/report_markdown_text.o plugins/report_util.o core/src/report_run.o tests/mocks/host_mock.o tests/mocks/report_fixture.o
UNIT_TESTS += tests/unit/detect_suite/test_detect_suite
tests/unit/detect_suite/test_detect_suite_OBJS = $(ORCH_OBJS) $(PLUGIN_OBJS) $(AGENT_OBJS)
UNIT_TESTS += tests/unit/detect_series/test_detect_series
tests/unit/detect_series/test_detect_series_OBJS = $(ORCH_OBJS) $(PLUGIN_OBJS) $(AGENT_OBJS)
UNIT_TESTS += tests/unit/harness/test_harness
tests/unit/harness/test_harness_OBJS := agent/harness/logic.o
tests/unit/harness/test_harness_OBJS += agent/harness/run.o agent/harness/opts.o agent/harness/report.o agent/parse/parse.o agent/parse/parse_util.o agent/parse/parse_gbench.o agent/parse/parse_lines.o agent/parse/parse_jetpack.o agent/parse/parse_hyperfine.o agent/parse/parse_native.o
UNIT_TESTS += tests/unit/harness/test_harness_run
tests/unit/harness/test_harness_run_OBJS = $(tests/unit/harness/test_harness_OBJS)
UNIT_TESTS += tests/unit/harness/test_harness_report
tests/unit/harness/test_harness_report_OBJS = $(tests/unit/harness/test_harness_OBJS)
UNIT_TESTS += tests/unit/presubmit/test_presubmit
tests/unit/presubmit/test_presubmit_OBJS = $(ORCH_OBJS) $(PLUGIN_OBJS) $(AGENT_OBJS)
UNIT_TESTS += tests/unit/bisect/test_bisect
tests/unit/bisect/test_bisect_OBJS = $(ORCH_OBJS) $(PLUGIN_OBJS) $(AGENT_OBJS)
UNIT_TESTS += tests/unit/buildcache/test_buildcache
tests/unit/buildcache/test_buildcache_OBJS := orchestrator/git/buildcache.o orchestrator/git/buildcache_prune.o $(CFG_ALONE_OBJS)
UNIT_TESTS += tests/unit/sandbox/test_sandbox
tests/unit/sandbox/test_sandbox_OBJS := orchestrator/git/sandbox.o orchestrator/git/buildcache_digest.o orchestrator/git/artifacts.o
UNIT_TESTS += tests/unit/artifacts/test_artifacts
tests/unit/artifacts/test_artifacts_OBJS := orchestrator/git/artifacts.o
UNIT_TESTS += tests/unit/buildid/test_buildid
tests/unit/buildid/test_buildid_OBJS := orchestrator/git/artifacts.o orchestrator/git/buildid.o orchestrator/config/cfg.o
UNIT_TESTS += tests/unit/report_html/test_report_html
tests/unit/report_html/test_report_html_OBJS := plugins/report_html.o plugins/html/assets.o core/src/report_run.o tests/mocks/host_mock.o
UNIT_TESTS += tests/unit/agentconn/test_agentconn
tests/unit/agentconn/test_agentconn_OBJS := orchestrator/farm/agentconn.o
UNIT_TESTS += tests/unit/verify/test_verify
tests/unit/verify/test_verify_OBJS := agent/verify.o
UNIT_TESTS += tests/unit/journal/test_journal
tests/unit/journal/test_journal_OBJS := agent/journal.o
UNIT_TESTS += tests/unit/fence/test_fence
tests/unit/fence/test_fence_OBJS := agent/fence.o
UNIT_TESTS += tests/unit/counters/test_counters
tests/unit/counters/test_counters_OBJS := agent/counters.o agent/cachegrind.o
UNIT_TESTS += tests/unit/stats/test_stats_exact
UNIT_TESTS += tests/unit/disagree/test_disagree
tests/unit/disagree/test_disagree_OBJS := $(CFG_ALONE_OBJS) orchestrator/job/disagree.o
UNIT_TESTS += tests/unit/duet/test_duet_round
tests/unit/duet/test_duet_round_OBJS := orchestrator/job/duet_round.o
UNIT_TESTS += tests/unit/duet/test_duet_isolate
tests/unit/duet/test_duet_isolate_OBJS := agent/duet_isolate.o agent/duet_pin.o
