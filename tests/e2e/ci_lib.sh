# Sourced after lib.sh by the tests of the CI integrations under
# plugins/ci/ (t0054 checks them as files, t0059 runs their scripts):
# their paths, the YAML checker and the scripts extracted from them.
CI="$BF_SRC/plugins/ci"
ACTION="$CI/github-action/action.yml"
GITLAB="$CI/gitlab/benchfarm.gitlab-ci.yml"
GROOVY="$CI/jenkins/vars/benchfarmCompare.groovy"

# ci_build_y2j: compiles the YAML checker into $Y2J, libyaml in, jansson
# out, as the project builds them; the compiler's messages go to $ERR.
Y2J="$T/yaml_to_json"
ci_build_y2j() {
	pkg-config --exists yaml-0.1 jansson &&
		cc -std=c11 -Wall -Wextra -Werror -o "$Y2J" \
			"$BF_SRC/tests/tools/yaml_to_json.c" \
			$(pkg-config --cflags --libs yaml-0.1 jansson) 2>"$ERR"
}

# ci_gitlab_script: the template's job script, from its JSON ($T/gitlab.json),
# into $T/gl.sh.
ci_gitlab_script() {
	jq -r '.[".benchfarm-compare"].script | join("\n")' "$T/gitlab.json" \
		>"$T/gl.sh"
}

# ci_jenkins_scripts: the Jenkins step's ''' shell scripts into
# $T/jk1.sh, $T/jk2.sh, ... in the order of the file.
ci_jenkins_scripts() {
	awk -v d="$T" "/script: '''\$/ { n++; f = d \"/jk\" n \".sh\"; next }
		/^'''\\)\$/ { f = \"\"; next } f { print > f }" "$GROOVY"
}
